// The `quanta` command line: one subcommand per job; each lives in its own file.
import CommandLineSpec
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The release this binary is (bumped with each landed milestone).
let quantaVersion = "0.5.0"

let commands = [inspectSpec, generateSpec, chatSpec, serveSpec, perplexitySpec, templateSpec, tokenizeSpec]

let usage = "usage: quanta <command> [options]\n\ncommands:\n"
    + commands.map { "  " + $0.name.padding(toLength: 12, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n")
    + "\n\n`quanta <command> --help` lists a command's options; `quanta --version` prints the version.\n"

installTruncatedModelHandler()
let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    printError(usage)
    exit(2)
}
let rest = Array(arguments.dropFirst())
switch command {
case "inspect": exit(runInspect(rest))
case "generate": exit(await runGenerate(rest))
case "perplexity": exit(await runPerplexity(rest))
case "template": exit(runTemplate(rest))
case "tokenize": exit(runTokenize(rest))
case "chat": exit(await runChat(rest))
case "serve": exit(await runServe(rest))
case "-h", "--help", "help":
    print(usage, terminator: "")
case "--version", "-v", "version":
    print("quanta \(quantaVersion)")
default:
    let hint = closestMatch(to: command, among: commands.map(\.name) + ["help", "version"]).map { "; did you mean '\($0)'?" } ?? ""
    printError("quanta: error: unknown command '\(command)'\(hint) (see quanta --help)\n")
    exit(2)
}
