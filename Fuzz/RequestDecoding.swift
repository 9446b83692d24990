// libFuzzer target: `quanta serve`'s request decoding (Sources/Server's request files: the
// OpenAI chat body, its messages, tools and schemas, the sampling fields, and Ollama's bodies
// renamed into it). The first byte picks the endpoint (OpenAI chat, Ollama chat, Ollama
// generate), the rest is the body. Every outcome must be a request or an APIError that is a
// 4xx with a one-line message.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestDecoding(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let body = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    do throws(APIError) {
        switch data[0] % 3 {
        case 0: _ = try ChatRequest(body: body)
        case 1: _ = try ChatRequest(body: OllamaRequest.chatBody(body, generate: false, modelID: "m", contextSize: 4096))
        default: _ = try ChatRequest(body: OllamaRequest.chatBody(body, generate: true, modelID: "m", contextSize: 4096))
        }
    } catch {
        if !(400..<500).contains(error.status) { fatalError("status \(error.status) for a bad body: \(error.message)") }
        if error.message.isEmpty || error.message.contains("\n") { fatalError("not a one-line message: \(error.message)") }
    }
    return 0
}
