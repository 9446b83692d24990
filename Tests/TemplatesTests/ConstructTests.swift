import Testing
@testable import Templates

/// One small template per construct (whitespace control, scoping, filters, methods, slicing,
/// tojson, ...), each compared byte for byte with Python jinja2's output.
@Suite struct ConstructTests {
    @Test func constructsMatchJinja2() throws {
        let cases = try Fixtures.json("constructs.json")
        #expect(cases.count > 50)
        var passed = 0
        for c in cases {
            let name = c["name"]!.stringValue!
            guard case let .object(context) = c["context"]! else { continue }
            let expected = Outcome(expected: c)
            let got = Outcome { () throws(TemplateError) -> String in
                var template = try ChatTemplate(source: c["template"]!.stringValue!)
                template.clock = Fixtures.clock
                return try template.render(context: context)
            }
            if got == expected { passed += 1 } else { Issue.record("\(name): expected \(expected), got \(got)") }
        }
        print("constructs: \(passed)/\(cases.count) match jinja2")
    }

    @Test func generationBlockRendersItsBody() throws {
        // Hugging Face's {% generation %} marks assistant text for masks; rendering is unchanged.
        let t = try ChatTemplate(source: "a{% generation %}b{{ 1 }}{% endgeneration %}c")
        #expect(try t.render(context: TemplateObject()) == "ab1c")
    }

    @Test func jsonRoundTripKeepsKeyOrderAndPythonFormatting() throws {
        let value = try parseJSON(#"{"z": 1, "a": [1.5, 2e16, -0.0, "é\n", null, true], "m": {}}"#)
        #expect(value.jsonString() == #"{"z": 1, "a": [1.5, 2e+16, -0.0, "é\n", null, true], "m": {}}"#)
        #expect(value.jsonString(indent: 1) == "{\n \"z\": 1,\n \"a\": [\n  1.5,\n  2e+16,\n  -0.0,\n  \"é\\n\",\n  null,\n  true\n ],\n \"m\": {}\n}")
    }
}
