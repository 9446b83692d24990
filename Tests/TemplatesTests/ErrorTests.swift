import Testing
@testable import Templates

/// Unsupported constructs fail at load with their name and position; raise_exception surfaces
/// as a typed error; runaway templates hit bounds instead of hanging.
@Suite struct ErrorTests {
    private func loadError(_ source: String) -> TemplateError? {
        do {
            _ = try ChatTemplate(source: source)
            return nil
        } catch {
            return error
        }
    }

    private func renderError(_ source: String, limits: RenderLimits = RenderLimits()) -> TemplateError? {
        do {
            var t = try ChatTemplate(source: source)
            t.limits = limits
            _ = try t.render(context: TemplateObject())
            return nil
        } catch {
            return error
        }
    }

    @Test func unsupportedConstructsFailAtLoadWithPosition() {
        #expect(loadError("ok\n  {% include 'other.jinja' %}") == .unsupported(construct: "statement 'include'", at: SourceLocation(line: 2, column: 6)))
        #expect(loadError("{{ x | frobnicate }}") == .unsupported(construct: "filter 'frobnicate'", at: SourceLocation(line: 1, column: 8)))
        #expect(loadError("{% if x is prime %}{% endif %}") == .unsupported(construct: "test 'prime'", at: SourceLocation(line: 1, column: 12)))
        #expect(loadError("{{ messages.append(1) }}") == .unsupported(construct: "method 'append'", at: SourceLocation(line: 1, column: 12)))
        #expect(loadError("{{ lipsum(2) }}") == .unsupported(construct: "function 'lipsum'", at: SourceLocation(line: 1, column: 4)))
        #expect(loadError("{% extends 'base' %}") == .unsupported(construct: "statement 'extends'", at: SourceLocation(line: 1, column: 4)))
        #expect(loadError("{% for x in xs recursive %}{% endfor %}") == .unsupported(construct: "recursive for loop", at: SourceLocation(line: 1, column: 16)))
    }

    @Test func macrosDefinedLaterAreCallable() throws {
        let t = try ChatTemplate(source: "{% macro a() %}{{ b() }}{% endmacro %}{% macro b() %}B{% endmacro %}{{ a() }}")
        #expect(try t.render(context: TemplateObject()) == "B")
    }

    @Test func syntaxErrorsHavePositions() {
        #expect(loadError("{% if x %}never closed") == .syntax("unexpected end of template, expected one of: elif, else, endif", SourceLocation(line: 1, column: 23)))
        #expect(loadError("a\n{{ 'unterminated }}") == .syntax("unterminated string", SourceLocation(line: 2, column: 4)))
        #expect(loadError("{{ (1 + }}") != nil)
        #expect(loadError("{% break %}") == .syntax("'break' outside of a loop", SourceLocation(line: 1, column: 4)))
        #expect(loadError("{# open comment") == .syntax("missing end of comment tag", SourceLocation(line: 1, column: 1)))
    }

    @Test func raiseExceptionIsTyped() {
        #expect(renderError("{{ raise_exception('Roles must alternate') }}") == .raised("Roles must alternate"))
    }

    @Test func undefinedMisuseIsARuntimeError() {
        guard case let .runtime(message, location)? = renderError("{{ missing.attr }}") else {
            Issue.record("expected a runtime error")
            return
        }
        #expect(message == "'missing' is undefined")
        #expect(location == SourceLocation(line: 1, column: 11))
    }

    @Test func loopsAndOutputAreBounded() {
        #expect(renderError("{% for i in range(10000000) %}{% endfor %}") == .limitExceeded("range of 10000000 items"))
        let nested = "{% for a in range(1000) %}{% for b in range(1000) %}{% for c in range(10) %}{% endfor %}{% endfor %}{% endfor %}"
        #expect(renderError(nested, limits: RenderLimits(maxLoopIterations: 100_000)) == .limitExceeded("more than 100000 loop iterations"))
        #expect(renderError("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}") == .limitExceeded("macro calls nested deeper than 64"))
        #expect(renderError("{{ 'x' * 100000000 }}", limits: RenderLimits(maxOutputBytes: 1 << 20)) == .limitExceeded("string longer than 1048576 bytes"))
        let growing = "{% for i in range(100000) %}{{ 'abcdefghij' }}{% endfor %}"
        #expect(renderError(growing, limits: RenderLimits(maxOutputBytes: 1 << 16)) == .limitExceeded("output longer than 65536 bytes"))
    }
}
