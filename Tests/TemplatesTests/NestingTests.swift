import Testing
@testable import Templates

/// Hostile nesting fails at load with a typed error instead of overflowing the stack; nesting as
/// deep as the bound still loads and renders.
@Suite struct NestingTests {
    private func loadError(_ source: String) -> TemplateError? {
        do {
            _ = try ChatTemplate(source: source)
            return nil
        } catch {
            return error
        }
    }

    private func isNestingLimit(_ error: TemplateError?) -> Bool {
        guard case let .limitExceeded(message)? = error else { return false }
        return message.hasPrefix("template nested deeper than \(Parser.maxNesting) levels")
    }

    @Test func deepParenthesesAreRejected() {
        let n = 100_000
        let source = "{{ " + String(repeating: "(", count: n) + "1" + String(repeating: ")", count: n) + " }}"
        #expect(isNestingLimit(loadError(source)))
    }

    @Test func deepIfBlocksAreRejected() {
        let n = 10_000
        let source = String(repeating: "{% if true %}", count: n) + "x" + String(repeating: "{% endif %}", count: n)
        #expect(isNestingLimit(loadError(source)))
    }

    @Test func longOperatorChainsAndPrefixRunsAreRejected() {
        let n = 100_000
        for source in ["{{ 1" + String(repeating: " + 1", count: n) + " }}",
                       "{{ " + String(repeating: "not ", count: n) + "x }}",
                       "{{ " + String(repeating: "-", count: n) + "1 }}",
                       "{{ x" + String(repeating: ".a", count: n) + " }}",
                       "{{ x" + String(repeating: "|trim", count: n) + " }}",
                       "{{ " + String(repeating: "[", count: n) + String(repeating: "]", count: n) + " }}"] {
            #expect(isNestingLimit(loadError(source)), "\(source.prefix(12))")
        }
    }

    @Test func nestingWithinTheBoundRenders() throws {
        let n = 60
        let ifs = String(repeating: "{% if true %}", count: n) + "x" + String(repeating: "{% endif %}", count: n)
        #expect(try ChatTemplate(source: ifs).render(context: TemplateObject()) == "x")
        let parens = "{{ " + String(repeating: "(", count: n) + "1" + String(repeating: " + 1)", count: n) + " }}"
        #expect(try ChatTemplate(source: parens).render(context: TemplateObject()) == "\(n + 1)")
    }

    /// Every macro call may evaluate an expression as deep as the bound: the renderer's stack
    /// must hold the deepest recursion the limits allow.
    @Test func deepestRecursionTheLimitsAllowRenders() throws {
        let expr = String(repeating: "-", count: 100) + "n"
        let source = "{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{{ " + expr + " }}{% endif %}{% endmacro %}{{ f(63) }}"
        let out = try ChatTemplate(source: source).render(context: TemplateObject())
        #expect(!out.isEmpty)
    }
}
