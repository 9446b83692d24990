import Foundation
import Synchronization
import Testing

/// `quanta chat` driven through a pseudo-terminal with SmolLM2 (greedy, short replies): what a
/// person at a terminal sees and what the conversation keeps. Each test runs one chat, well
/// under 30 s.
@Suite(.serialized) struct ChatTerminalTests {
    static let arguments = ["chat", "-m", CraftedModels.smollm, "--temp", "0", "-n", "8", "-c", "512", "-t", "2"]
    static let enter = "\r", left = "\u{1b}[D", ctrlC = "\u{03}", ctrlD = "\u{04}"

    /// The banner, a line edited with the cursor, a `"""` block, `/clear`, and `/bye`.
    @Test func bannerEditingMultiLineAndClear() throws {
        let files = try ScratchDirectory()
        defer { files.remove() }
        let chat = try ChatTerminal(Self.arguments)
        #expect(chat.waitFor("SmolLM2-135M-Instruct.Q4_1.gguf · context 512 tokens · 2 threads"), "\(chat.text)")
        #expect(chat.waitFor("/help for commands · /bye or Ctrl-D to quit"))
        #expect(chat.waitFor(">>> "))
        // "Hello wrld", the cursor three to the left, "o": the model gets "Hello world".
        chat.type("Hello wrld" + String(repeating: Self.left, count: 3) + "o" + Self.enter)
        #expect(chat.waitFor("[usage] input"))
        chat.type("\"\"\"" + Self.enter + "first line" + Self.enter + "second line\"\"\"" + Self.enter)
        #expect(chat.waitFor("[usage] input"))
        chat.type("/save \(files.path("before.json"))" + Self.enter)
        #expect(chat.waitFor("[saved 2 turns"))
        chat.type("/clear" + Self.enter)
        #expect(chat.waitFor("[new conversation]"))
        chat.type("/save \(files.path("after.json"))" + Self.enter)
        #expect(chat.waitFor("[saved 0 turns"))
        chat.type("/bye" + Self.enter)
        #expect(chat.exitStatus() == 0, "\(chat.text)")
        let prompts = try files.entries("before.json").filter { $0.type == "prompt" }.map(\.text)
        #expect(prompts == ["Hello world", "first line\nsecond line"], "\(chat.text)")
        #expect(try files.entries("after.json").isEmpty)
    }

    /// A multi-line paste (bracketed by the terminal) is one message, not one per line; its last
    /// line stays on the prompt for editing until Enter.
    @Test func aMultiLinePasteIsOneMessage() throws {
        let files = try ScratchDirectory()
        defer { files.remove() }
        let chat = try ChatTerminal(Self.arguments)
        #expect(chat.waitFor(">>> "))
        chat.type("Translate: " + "\u{1b}[200~" + "one\rtwo\rthree" + "\u{1b}[201~")
        #expect(chat.waitFor("... two"), "\(chat.text)")
        chat.type(" four" + Self.enter)
        #expect(chat.waitFor("[usage] input"))
        chat.type("/save \(files.path("paste.json"))" + Self.enter)
        #expect(chat.waitFor("[saved 1 turn"), "\(chat.text)")
        chat.type("/bye" + Self.enter)
        #expect(chat.exitStatus() == 0)
        let prompt = try files.entries("paste.json").first?.text
        #expect(prompt == "Translate: one\ntwo\nthree four", "\(prompt.debugDescription)")
    }

    /// `/set` changes the options of the next turn (recorded with its prompt); bad values and
    /// unknown commands are errors that never reach the model.
    @Test func setChangesTheNextTurnsOptions() throws {
        let files = try ScratchDirectory()
        defer { files.remove() }
        let chat = try ChatTerminal(Self.arguments)
        #expect(chat.waitFor(">>> "))
        chat.type("/set top_k 20" + Self.enter)
        #expect(chat.waitFor("top_k 20"), "\(chat.text)")
        chat.type("/set temperature 0.3" + Self.enter)
        #expect(chat.waitFor("[temperature 0.3"), "\(chat.text)")
        chat.type("/set num_predict 3" + Self.enter)
        #expect(chat.waitFor("num_predict 3"))
        chat.type("/set top_k many" + Self.enter)
        #expect(chat.waitFor("error: top_k must be an integer"))
        chat.type("/frobnicate" + Self.enter)
        #expect(chat.waitFor("error: unknown command /frobnicate"))
        chat.type("Hi" + Self.enter)
        #expect(chat.waitFor("[usage] input"))
        chat.type("/save \(files.path("set.json"))" + Self.enter)
        #expect(chat.waitFor("[saved 1 turn"))
        chat.type(Self.ctrlD)
        #expect(chat.exitStatus() == 0)
        let prompts = try files.entries("set.json").filter { $0.type == "prompt" }
        #expect(prompts.map(\.text) == ["Hi"])   // neither command reached the model
        let options = prompts.first?["options"] as? [String: Any]
        #expect(options?["temperature"] as? Double == 0.3)
        #expect(options?["maximumResponseTokens"] as? Int == 3)
    }

    /// `/save` then `/load` in a new chat restores the conversation, which then continues.
    @Test func saveAndLoadRoundTrip() throws {
        let files = try ScratchDirectory()
        defer { files.remove() }
        let first = try ChatTerminal(Self.arguments)
        #expect(first.waitFor(">>> "))
        first.type("What is the capital of France?" + Self.enter)
        #expect(first.waitFor("[usage] input"))
        first.type("/save \(files.path("saved.json"))" + Self.enter + "/exit" + Self.enter)
        #expect(first.exitStatus() == 0)

        let second = try ChatTerminal(Self.arguments)
        #expect(second.waitFor(">>> "))
        second.type("/load \(files.path("saved.json"))" + Self.enter)
        #expect(second.waitFor("[loaded 1 turn"), "\(second.text)")
        second.type("/save \(files.path("reloaded.json"))" + Self.enter)
        #expect(second.waitFor("[saved 1 turn"))
        second.type("And of Spain?" + Self.enter)
        #expect(second.waitFor("[usage] input"))
        second.type("/save \(files.path("continued.json"))" + Self.enter)
        #expect(second.waitFor("[saved 2 turns"))
        second.type("/bye" + Self.enter)
        #expect(second.exitStatus() == 0)
        let saved = try Data(contentsOf: URL(fileURLWithPath: files.path("saved.json")))
        let reloaded = try Data(contentsOf: URL(fileURLWithPath: files.path("reloaded.json")))
        #expect(saved == reloaded)
        let continued = try files.entries("continued.json")
        #expect(continued.filter { $0.type == "prompt" }.map(\.text) == ["What is the capital of France?", "And of Spain?"])
        #expect(continued.filter { $0.type == "response" }.count == 2)
    }

    /// Ctrl-C during a long reply stops it, in any turn; the part already shown stays in the
    /// conversation (saved with its prompt) and its tokens are counted. Ctrl-C at the prompt
    /// drops the line being typed.
    @Test func anInterruptedReplyIsKept() throws {
        let files = try ScratchDirectory()
        defer { files.remove() }
        var arguments = Self.arguments
        arguments.replaceSubrange(arguments.firstIndex(of: "-n")!...arguments.firstIndex(of: "-n")! + 1, with: ["-n", "400"])
        arguments.replaceSubrange(arguments.firstIndex(of: "-t")!...arguments.firstIndex(of: "-t")! + 1, with: ["-t", "1"])
        arguments.replaceSubrange(arguments.firstIndex(of: "-c")!...arguments.firstIndex(of: "-c")! + 1, with: ["-c", "2048"])
        let chat = try ChatTerminal(arguments)
        #expect(chat.waitFor(">>> "))
        // Both prompts get hundreds of tokens from SmolLM2 at --temp 0: Ctrl-C comes mid-reply.
        var screens: [String] = []
        for story in ["Write a long story about a dragon.", "Continue the story."] {
            chat.type(story + Self.enter)
            #expect(chat.waitFor(story + "\r\n"))
            // Some of the reply streams before Ctrl-C. It starts right after the echoed prompt
            // (its first words can arrive in the same read as the echo), after the line
            // editor's bracketed-paste-off sequence, which the comparison below drops.
            let shown = chat.text
            let start = shown.utf8.count - (shown.components(separatedBy: story + "\r\n").last ?? "").utf8.count
            let deadline = Date().addingTimeInterval(10)
            while chat.text.utf8.count < start + 80 && Date() < deadline { usleep(20_000) }
            chat.type(Self.ctrlC)
            #expect(chat.waitFor("[reply interrupted; the part above stays"), "\(chat.text)")
            #expect(chat.waitFor("[usage] input"))
            let usage = chat.text.components(separatedBy: "[usage] ").last ?? ""
            let output = usage.components(separatedBy: "output ").dropFirst().first?.split(separator: " ").first.flatMap { Int($0) } ?? 0
            #expect(output > 0 && output < 400, "\(usage)")
            let reply = chat.text.utf8.dropFirst(start)
            screens.append(String(decoding: reply, as: UTF8.self).components(separatedBy: "[reply interrupted").first ?? "")
            // The next keys go to the line editor, not to the terminal's cooked mode.
            #expect(chat.waitFor(">>> "))
        }
        chat.type("typed, then dropped" + Self.ctrlC)
        #expect(chat.waitFor("^C (Ctrl-D or /bye quits)"), "\(chat.text)")
        chat.type("/save \(files.path("cut.json"))" + Self.enter)
        #expect(chat.waitFor("[saved 2 turns"), "\(chat.text)")
        chat.type("/bye" + Self.enter)
        #expect(chat.exitStatus() == 0, "\(chat.text)")
        let entries = try files.entries("cut.json")
        #expect(entries.map(\.type) == ["prompt", "response", "prompt", "response"])
        // The kept parts are what the terminal showed. The terminal writes "\r\n" for "\n" and
        // echoes Ctrl-C as "^C" where the reply was when the key came; it also discards what was
        // written but not yet displayed at that moment (the line discipline flushes its output
        // on an interrupt), so the screen is the reply with at most one gap at the "^C".
        for (reply, screen) in zip(entries.filter({ $0.type == "response" }).map(\.text), screens) {
            let parts = screen.replacingOccurrences(of: "\u{1B}[?2004l", with: "").replacingOccurrences(of: "\r\n", with: "\n")
                .components(separatedBy: "^C")
            let before = parts[0], after = parts.dropFirst().joined().trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(before.count > 20 && reply.hasPrefix(before) && reply.hasSuffix(after), "\(reply.debugDescription) vs \(screen.debugDescription)")
        }
    }

    /// Ctrl-D at the prompt ends the chat with the shell's prompt on a new line.
    @Test func ctrlDEndsOnANewLine() throws {
        let chat = try ChatTerminal(Self.arguments)
        #expect(chat.waitFor(">>> "))
        chat.type(Self.ctrlD)
        #expect(chat.exitStatus() == 0)
        #expect(chat.text.utf8.last == UInt8(ascii: "\n"), "\(chat.text.debugDescription)")
    }

    /// Piped input: no banner, no prompt, one line per turn; commands still work.
    @Test func pipedInputHasNoBanner() throws {
        let r = try runQuanta(Self.arguments, stdin: "Hi\n/set top_k 5\nBye\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("/help for commands") && !r.stderr.contains(">>>"), "\(r.stderr)")
        #expect(r.stderr.components(separatedBy: "[usage] ").count == 3, "\(r.stderr)")
        #expect(r.stderr.contains("top_k 5"))
    }

    /// A reply that fills the context gets a notice; the next message drops the oldest turn
    /// instead of failing; with --no-context-shift it asks for /clear, and /clear recovers.
    @Test func aFullContextDropsTheOldestTurns() throws {
        let long = ["chat", "-m", CraftedModels.smollm, "--temp", "0", "-n", "-1", "-c", "256"]
        let shifted = try runQuanta(long, stdin: "Write a long story about a dragon.\nAnd one about a cat.\n")
        #expect(shifted.status == 0, "\(shifted.stderr)")
        #expect(shifted.stderr.contains("[the context is full (256 tokens)"), "\(shifted.stderr)")
        #expect(shifted.stderr.contains("dropped the 1 oldest turn"), "\(shifted.stderr)")
        #expect(shifted.stderr.components(separatedBy: "[usage] ").count == 3)
        let asking = try runQuanta(long + ["--no-context-shift"],
                                   stdin: "Write a long story about a dragon.\nAnd one about a cat.\n/clear\nHi\n")
        #expect(asking.status == 0, "\(asking.stderr)")
        #expect(asking.stderr.contains("error: the context is full (256 tokens): /clear starts a new conversation"), "\(asking.stderr)")
        #expect(asking.stderr.components(separatedBy: "[usage] ").count == 3, "\(asking.stderr)")
    }
}


/// A release `quanta` run on a pseudo-terminal, typed at like a person would. util-linux
/// `script` creates the terminal and makes it the child's controlling terminal, so the chat sees
/// a tty on stdin and the Ctrl-C character becomes SIGINT while a reply streams (the line
/// discipline's ISIG), exactly as in a terminal emulator.
final class ChatTerminal: Sendable {
    private let process = Process()
    private let keyboard = Pipe()
    private let screen = Pipe()
    private let received = Received()
    /// How much of the screen `waitFor` has already matched.
    private let mark = Mutex(0)

    init(_ arguments: [String]) throws {
        // `script -c` runs the command through `$SHELL -c`. dash (Debian's /bin/sh, the shell when
        // SHELL is unset) stays as the chat's parent in its process group, so the terminal's Ctrl-C
        // also reaches dash, which dies of it and makes `script` report 130 however the chat
        // ended; `exec` puts the chat in the shell's place under any shell.
        let command = "exec " + (["\(repositoryRoot)/.build/release/quanta"] + arguments).map { "'\($0)'" }.joined(separator: " ")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-q", "-e", "-c", command, "/dev/null"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TERM": "xterm", "EDITRC": "/dev/null", "SHELL": "/bin/sh"]) { $1 }
        process.standardInput = keyboard
        process.standardOutput = screen
        process.standardError = screen
        screen.fileHandleForReading.readabilityHandler = { [received] handle in
            let data = handle.availableData
            received.append(data)
        }
        try process.run()
        // A hung chat fails its test instead of stalling the suite.
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { [process] in
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }

    /// Everything the terminal showed so far.
    var text: String { received.text }

    /// Sends keys as a terminal would: "\r" is Enter, "\u{1b}[D" the left arrow, "\u{03}" Ctrl-C.
    func type(_ keys: String) {
        keyboard.fileHandleForWriting.write(Data(keys.utf8))
    }

    /// Waits until `fragment` appears after what the previous wait matched; false on timeout.
    @discardableResult
    func waitFor(_ fragment: String, timeout: Double = 25) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let all = text.utf8
            let start = mark.withLock { $0 }
            if start <= all.count, let range = String(decoding: all.dropFirst(start), as: UTF8.self).range(of: fragment) {
                let rest = String(decoding: all.dropFirst(start), as: UTF8.self)
                mark.withLock { $0 = start + rest[..<range.upperBound].utf8.count }
                return true
            }
            usleep(20_000)
        }
        return false
    }

    /// Waits for the chat to end; its exit status (-1 if it did not end in time).
    func exitStatus(timeout: Double = 20) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            return -1
        }
        return process.terminationStatus
    }
}

/// The bytes a terminal has shown, appended by the reading thread.
private final class Received: Sendable {
    private let bytes = Mutex(Data())

    func append(_ data: Data) { bytes.withLock { $0.append(data) } }

    var text: String { bytes.withLock { String(decoding: $0, as: UTF8.self) } }
}

/// A scratch directory for saved transcripts.
struct ScratchDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("quanta-chat-\(getpid())-\(UUID().uuidString)")

    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }

    /// The entries of a transcript `/save` wrote, as JSON objects.
    func entries(_ name: String) throws -> [[String: Any]] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url.appendingPathComponent(name))) as? [[String: Any]] ?? []
    }
}

extension Dictionary where Key == String, Value == Any {
    /// The entry's type ("prompt", "response", ...).
    var type: String? { self["type"] as? String }
    /// The entry's text segments joined.
    var text: String { (self["segments"] as? [[String: Any]] ?? []).compactMap { $0["content"] as? String }.joined() }
}
