// The `quanta` command line: one subcommand per job; each lives in its own file.
#if canImport(Glibc)
import Glibc
#endif

let usage = """
usage: quanta <command> [options]

commands:
  inspect PATH [--json]     metadata, tensor table and totals of a GGUF file
  generate --model PATH --prompt TEXT [-n 64] [--temp 0] ...
                            stream a continuation (see `quanta generate --help`)
  perplexity --model PATH --file TEXT [--ctx 512]
                            llama-perplexity's protocol on a text file
  template [--model PATH] [--template FILE] [--no-generation-prompt] [--bos TEXT] [--eos TEXT]
                            render a JSON conversation (stdin) with a chat template
  tokenize --model PATH [--add-special] [--parse-special] [--pieces]
                            stdin text -> token ids (JSON array on one line)
  chat --model PATH [--system TEXT] [--reasoning LEVEL]
                            multi-turn chat, one stdin line per turn, usage per turn
"""

installTruncatedModelHandler()
let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    printError(usage + "\n")
    exit(2)
}
let rest = Array(arguments.dropFirst())
switch command {
case "inspect": exit(runInspect(rest))
case "generate": exit(runGenerate(rest))
case "perplexity": exit(runPerplexity(rest))
case "template": exit(runTemplate(rest))
case "tokenize": exit(runTokenize(rest))
case "chat": exit(await runChat(rest))
case "-h", "--help", "help":
    print(usage)
default:
    printError("quanta: unknown command \(command)\n\(usage)\n")
    exit(2)
}
