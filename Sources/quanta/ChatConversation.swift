#if canImport(Glibc)
import Glibc
#endif
import CommandLineSpec
import Foundation
import JSON
import Quanta
import Templates

/// The conversation `quanta chat` holds: the model, the session on it and the settings, with
/// what the commands do to them and the room a turn needs in the context.
final class ChatConversation {
    private(set) var model: LocalLanguageModel
    private(set) var session: LanguageModelSession
    private(set) var settings: ChatSettings
    /// The system instructions `/clear` starts over with.
    private(set) var system: String?

    init(model: LocalLanguageModel, system: String?, settings: ChatSettings) {
        self.model = model
        self.system = system
        self.settings = settings
        session = LanguageModelSession(model: model, instructions: system)
        session.prewarm()
    }

    /// `/clear`: a new session on the same model and system prompt.
    func clear() {
        session = LanguageModelSession(model: model, instructions: system)
        session.prewarm()
    }

    /// `/set NAME VALUE`. A changed load-time sampler value reloads the model (shared weights)
    /// and moves the conversation to a session on it.
    func set(_ name: String, _ value: String) async throws(ChatError) {
        var changed = settings
        try changed.set(name, value)
        var loadTime = changed.sampling
        loadTime.temperature = model.configuration.sampling.temperature
        if loadTime != model.configuration.sampling {
            var configuration = model.configuration
            configuration.sampling = loadTime
            do {
                model = try await LocalLanguageModel(contentsOf: model.url, configuration: configuration)
            } catch {
                throw ChatError("\(name) \(value): \(error)")
            }
            session = LanguageModelSession(model: model, transcript: session.transcript)
        }
        settings = changed
    }

    /// `/set system TEXT`: the conversation goes on under new instructions (the KV cache is
    /// computed again at the next turn, as the prompt's start changed).
    func setSystem(_ text: String) {
        system = text
        session = LanguageModelSession(model: model, transcript: Self.instructed(session.transcript.history, text))
    }

    /// `/save FILE`: the transcript as JSON, written to a temporary file beside FILE and renamed
    /// over it. Returns the number of turns written.
    func save(to path: String) throws(ChatError) -> Int {
        let data: [UInt8]
        do { data = Array(try JSONValueEncoder(sortedKeys: true).encode(session.transcript).indentedText.utf8) + [0x0A] } catch {
            throw ChatError("cannot save \(path): the conversation does not encode as JSON (\(codingErrorSummary(error)))")
        }
        let temporary = "\(path).\(getpid()).tmp"
        func failure() -> ChatError {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            return ChatError("cannot save \(path): \(reason)")
        }
        guard let file = fopen(temporary, "wb") else { throw failure() }
        let written = data.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        guard fclose(file) == 0, written == data.count else { throw failure() }
        guard rename(temporary, path) == 0 else { throw failure() }
        return Self.turns(in: session.transcript)
    }

    /// `/load FILE`: a session that continues the conversation in FILE, either a transcript
    /// `/save` wrote or a JSON array of `{"role", "content"}` messages (`{"messages": [...]}`
    /// too), as `quanta template` reads. Returns its turns.
    func load(from path: String) throws(ChatError) -> Int {
        let bytes: [UInt8]
        do { bytes = try readInputFile(path) } catch { throw ChatError(error.message) }
        guard let json = try? parseJSON(String(decoding: bytes, as: UTF8.self)) else {
            throw ChatError("cannot load \(path): it is not JSON")
        }
        let transcript: Transcript
        if let conversation = ConversationJSON(json, requiringRoles: true) {
            transcript = try Self.transcript(fromMessages: conversation.messages, path: path, system: system)
        } else if case let .array(entries) = json, entries.allSatisfy({ $0["type"]?.stringValue != nil }) {
            // The FM27 transcript's own Codable form, as /save wrote it.
            do {
                transcript = try JSONValueDecoder().decode(Transcript.self, from: try JSONValue(parsing: String(decoding: bytes, as: UTF8.self)))
            } catch {
                throw ChatError("cannot load \(path): not a transcript /save wrote (\(codingErrorSummary(error)))")
            }
        } else {
            throw ChatError("cannot load \(path): expected a transcript /save wrote or a JSON array of {\"role\", \"content\"} messages")
        }
        if case let .instructions(instructions)? = transcript.first {
            system = instructions.segments.map(\.description).joined()
        }
        session = LanguageModelSession(model: model, transcript: transcript)
        return Self.turns(in: transcript)
    }

    /// A transcript of system, user and assistant messages; without a system message the
    /// conversation's own instructions lead it.
    private static func transcript(fromMessages messages: [TemplateValue], path: String, system: String?) throws(ChatError) -> Transcript {
        var entries: [Transcript.Entry] = [], instructions = system
        for (index, message) in messages.enumerated() {
            func failure(_ text: String) -> ChatError { ChatError("cannot load \(path): message \(index + 1) \(text)") }
            guard let role = message["role"]?.stringValue else { throw failure("has no \"role\"") }
            guard let content = message["content"]?.stringValue else { throw failure("has no \"content\" string") }
            let segments: [Transcript.Segment] = [.text(Transcript.TextSegment(content: content))]
            switch role {
            case "system" where index == 0: instructions = content
            case "user": entries.append(.prompt(Transcript.Prompt(segments: segments)))
            case "assistant": entries.append(.response(Transcript.Response(assetIDs: [], segments: segments)))
            default:
                throw failure("has role \"\(role)\"; /load takes a first \"system\" message, then \"user\" and \"assistant\" ones")
            }
        }
        return instructed(entries[...], instructions)
    }

    /// `history` after an instructions entry holding `system` (none when nil).
    private static func instructed(_ history: ArraySlice<Transcript.Entry>, _ system: String?) -> Transcript {
        guard let system else { return Transcript(entries: history) }
        let instructions = Transcript.Instructions(segments: [.text(Transcript.TextSegment(content: system))], toolDefinitions: [])
        return Transcript(entries: [.instructions(instructions)] + history)
    }

    /// Keeps an interrupted reply: the session drops a cancelled request, so its prompt and what
    /// was streamed (`produced`, the last snapshot's entries) are appended here, and later turns
    /// see the reply as it was cut.
    func keep(prompt: String, produced: ArraySlice<Transcript.Entry>) {
        // A reply that finished just as Ctrl-C came is already recorded.
        guard let last = produced.last, !session.transcript.contains(where: { $0.id == last.id }) else { return }
        session.transcript.append(.prompt(Transcript.Prompt(segments: [.text(Transcript.TextSegment(content: prompt))])))
        session.transcript.append(contentsOf: produced.filter { if case .prompt = $0 { false } else { true } })
    }

    /// Makes room for `prompt` and a reply: when the conversation leaves too little room for the
    /// reply (`num_predict`, at most half the context), the oldest turns are dropped, keeping the
    /// system prompt, as llama.cpp's context shift does. A prompt with no history left before it
    /// runs with whatever room remains. Returns the number of turns dropped.
    /// - Throws: when the prompt does not fit in the context at all: after dropping every turn,
    ///   or at once when `context_shift` is off.
    func makeRoom(for prompt: String) async throws -> Int {
        let contextSize = model.contextSize
        let reply = min(settings.maximumTokens ?? contextSize / 4, contextSize / 2)
        let entry = Transcript.Entry.prompt(Transcript.Prompt(segments: [.text(Transcript.TextSegment(content: prompt))]))
        var transcript = session.transcript
        var dropped = 0
        while true {
            let tokens = try await model.tokenCount(for: transcript + [entry])
            if tokens + reply <= contextSize || tokens < contextSize && (transcript.history.isEmpty || !settings.contextShift) { break }
            guard settings.contextShift else {
                throw ChatError("the context is full (\(contextSize) tokens): /clear starts a new conversation, "
                    + "/set context_shift on drops the oldest turns")
            }
            guard let next = Self.secondTurnStart(in: transcript.history) else {
                throw ChatError("this message (\(tokens) tokens) does not fit in the \(contextSize)-token context")
            }
            transcript.history = transcript.history[next...]
            dropped += 1
        }
        if dropped > 0 { session.transcript = transcript }
        return dropped
    }

    /// Where the second turn of `history` starts (a turn is a prompt and what answered it).
    private static func secondTurnStart(in history: ArraySlice<Transcript.Entry>) -> Int? {
        history.indices.dropFirst().first { if case .prompt = history[$0] { true } else { false } }
            ?? (history.isEmpty ? nil : history.endIndex)
    }

    /// The number of prompts in `transcript`.
    static func turns(in transcript: Transcript) -> Int {
        transcript.filter { if case .prompt = $0 { true } else { false } }.count
    }
}
