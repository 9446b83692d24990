// The answer filter against a naive reference: stream everything, then cut at the first stop
// sequence.
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

struct AnswerFilterTests {
    /// Streamed text, whatever the piece boundaries, is exactly the reference cut.
    @Test(arguments: ["Paris.\nUser: and Rome?", "Paris.\n\nUser:", "No stop here", "A\nUse the force\nUser:x", "\nUser:"])
    func streamsUpToTheFirstStopSequence(_ text: String) {
        let stops = ["\nUser:", "\nSystem:"]
        let reference = stops.compactMap { text.range(of: $0)?.lowerBound }.min().map { String(text[..<$0]) } ?? text
        for split in 1...4 {
            var filter = AnswerFilter(stopSequences: stops, callOpenings: [])
            var streamed = "", stopped = false
            var rest = Substring(text)
            while !rest.isEmpty && !stopped {
                let piece = rest.prefix(split)
                rest = rest.dropFirst(split)
                let (out, stop) = filter.push(String(piece))
                streamed += out
                stopped = stop
            }
            if !stopped { streamed += filter.finish() }
            #expect(streamed == reference, "split \(split)")
            #expect(stopped == (reference != text))
        }
    }

    /// An answer that opens with a call opening is held whole; one that does not is streamed.
    @Test func holdsToolCalls() {
        var call = AnswerFilter(stopSequences: [], callOpenings: ["<tool_call>"])
        var streamed = ""
        for piece in ["<tool", "_call>\n{\"name\": \"f\"}", "\n</tool_call>"] { streamed += call.push(piece).stream }
        #expect(streamed.isEmpty && call.isCall && call.finish().isEmpty)
        #expect(call.text == "<tool_call>\n{\"name\": \"f\"}\n</tool_call>")

        var prose = AnswerFilter(stopSequences: [], callOpenings: ["<tool_call>"])
        streamed = ""
        for piece in ["<to", "day is sunny"] { streamed += prose.push(piece).stream }
        streamed += prose.finish()
        #expect(streamed == "<today is sunny" && !prose.isCall)
    }
}
