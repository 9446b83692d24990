/// Call identifiers as templates accept them.
import LanguageModelAPI
enum ToolCallID {
    /// `id` if it is nine ASCII letters and digits, else nine such characters derived from it
    /// (FNV-1a, so a call and its result map to the same text in every render).
    ///
    /// Mistral's templates raise unless ids are exactly nine alphanumerics, and the ids a
    /// session makes (UUIDs) are not; the other templates print ids verbatim or not at all, so
    /// one rule for all keeps calls and results matched everywhere.
    static func templateSafe(_ id: String) -> String {
        if id.utf8.count == 9, id.utf8.allSatisfy(isAlphanumeric) { return id }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var out = ""
        for _ in 0..<9 {
            out.append(alphabet[Int(hash % UInt64(alphabet.count))])
            hash /= UInt64(alphabet.count)
        }
        return out
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
