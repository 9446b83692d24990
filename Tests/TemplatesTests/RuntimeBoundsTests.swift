import Testing
@testable import Templates

/// Inputs found by hand while fuzzing the renderer, each of which used to trap (integer
/// overflow, a negative or huge repeat count) or overflow the stack (values nested by a loop, a
/// namespace holding itself); each is now a typed error or Python's answer.
@Suite struct RuntimeBoundsTests {
    private func render(_ source: String) throws(TemplateError) -> String {
        try ChatTemplate(source: source).render(context: TemplateObject())
    }

    private func isLimit(_ source: String) -> Bool {
        do {
            _ = try render(source)
            return false
        } catch {
            if case .limitExceeded = error { return true }
            return false
        }
    }

    private func isOverflow(_ source: String) -> Bool {
        do {
            _ = try render(source)
            return false
        } catch {
            if case let .runtime(message, _) = error { return message == "integer overflow" }
            return false
        }
    }

    private let minInt = "(-9223372036854775807 - 1)"

    @Test func integerEdgeCasesAreErrorsOrPythonsAnswer() throws {
        #expect(isOverflow("{{ \(minInt) // -1 }}"))
        #expect(isOverflow("{{ -\(minInt) }}"))
        #expect(isOverflow("{{ \(minInt) | abs }}"))
        #expect(try render("{{ \(minInt) % -1 }}|{{ 7 // -1 }}|{{ 7 % -1 }}|{{ -7 // 2 }}|{{ -7 % 2 }}") == "0|-7|0|-4|1")
    }

    @Test func rangesSpanningAllIntsAreBounded() throws {
        #expect(isLimit("{{ range(-9223372036854775807, 9223372036854775807) | length }}"))
        #expect(isLimit("{{ range(9223372036854775807) | length }}"))
        #expect(isLimit("{{ range(0, \(minInt), -1) | length }}"))
        #expect(try render("{{ range(9223372036854775807, \(minInt), -9223372036854775807) | list }}")
            == "[9223372036854775807, 0, -9223372036854775807]")
        #expect(try render("{{ range(10, 0, -3) | list }}") == "[10, 7, 4, 1]")
    }

    @Test func hugeSlicesStepsAndRepeatsAreBounded() throws {
        #expect(try render("{{ [1, 2, 3][1:9223372036854775807:9223372036854775807] }}") == "[2]")
        #expect(try render("{{ 'abc'[\(minInt)::-1] }}") == "")
        #expect(isLimit("{{ 'ab' * 9223372036854775807 }}"))
        #expect(isLimit("{{ [1, 2] * 9223372036854775807 }}"))
    }

    @Test func indentWidthsAreBounded() throws {
        #expect(try render("{{ 'a\nb' | indent(-5) }}") == "a\nb")
        #expect(isLimit("{{ 'a\nb' | indent(9223372036854775807) }}"))
        #expect(try render("{{ [1] | tojson(indent=-3) }}") == "[\n1\n]")
        #expect(isLimit("{{ [1] | tojson(indent=9223372036854775807) }}"))
        #expect(isLimit("{{ [[[1]]] | tojson(indent=8000000) }}"))
    }

    @Test func valuesBuiltByLoopsAreBoundedInDepth() {
        let wrap = { (body: String) in
            "{% set ns = namespace(x=none) %}{% for i in range(100000) %}{% set ns.x = \(body) %}{% endfor %}{{ ns.x | length }}"
        }
        #expect(isLimit(wrap("[ns.x]")))
        #expect(isLimit(wrap("{'a': ns.x}")))
        #expect(isLimit(wrap("namespace(y=ns.x)")))
        #expect(isLimit(wrap("dict(y=ns.x)")))
    }

    @Test func aNamespaceCannotHoldItself() {
        #expect(isLimit("{% set ns = namespace(a=1) %}{% set ns.x = ns %}{{ ns }}"))
        #expect(isLimit("{% set ns = namespace(a=1) %}{% set ns.x = [ns] %}{{ ns.x }}"))
    }

    /// The deepest value the bound allows is printed, serialised, compared and released on the
    /// test's own (cooperative-pool) thread.
    @Test func theDeepestAllowedValueRenders() throws {
        let out = try render("{% set ns = namespace(x=[]) %}{% for i in range(\(maxValueDepth - 3)) %}{% set ns.x = [ns.x] %}{% endfor %}"
            + "{{ ns.x | tojson | length }} {{ ns.x | string | length }} {{ ns.x == ns.x }}")
        #expect(out == "\(2 * (maxValueDepth - 2)) \(2 * (maxValueDepth - 2)) True")
    }
}
