import Foundation
import Quanta

/// The lines a terminal chat opens with: what runs (model file, context, threads) and how to
/// get help and quit.
func chatBanner(_ model: LocalLanguageModel) -> String {
    let threads = model.configuration.threads ?? ProcessInfo.processInfo.activeProcessorCount
    return """
        quanta \(quantaVersion) · \(model.url.lastPathComponent) · context \(model.contextSize) tokens · \(threads) thread\(threads == 1 ? "" : "s")
        /help for commands · /bye or Ctrl-D to quit · Ctrl-C stops a reply · \"\"\" for multi-line messages

        """
}
