// How the generated text of a request becomes the caller's content type.
import Foundation

/// The schema a request is constrained to (nil: free text), and how its text becomes `Content`.
package struct OutputShape<Content: Generable> {
    let schema: GenerationSchema?
    /// The final content and raw content of the complete text.
    let complete: (String) throws -> (Content, GeneratedContent)
    /// The partial content of a prefix of the text, or nil when it cannot be read yet.
    let partial: (String) -> (Content.PartiallyGenerated, GeneratedContent)?
}

extension OutputShape where Content == String {
    /// Free text.
    static package var text: Self {
        Self(schema: nil, complete: { ($0, $0.generatedContent) }, partial: { ($0, $0.generatedContent) })
    }
}

extension OutputShape where Content == GeneratedContent {
    /// JSON following `schema`, returned as generated content.
    static func schema(_ schema: GenerationSchema) -> Self {
        Self(schema: schema, complete: { text in
            let content = try GeneratedContent(json: text)
            return (content, content)
        }, partial: { text in
            guard let content = try? GeneratedContent(json: text) else { return nil }
            return (content, content)
        })
    }
}

extension OutputShape {
    /// JSON following `Content.generationSchema`, decoded into `Content`.
    static func generating(_ type: Content.Type) -> Self {
        Self(schema: Content.generationSchema, complete: { text in
            let raw = try GeneratedContent(json: text)
            return (try Content(raw), raw)
        }, partial: { text in
            guard let raw = try? GeneratedContent(json: text), let partial = try? Content.PartiallyGenerated(raw) else { return nil }
            return (partial, raw)
        })
    }
}
