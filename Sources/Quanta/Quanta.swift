// `import Quanta`: the FM27 API and the local GGUF backend behind it, one import for apps.
// The evaluation tools (perplexity, KL divergence) are a separate module, `Evaluation`.
@_exported import LanguageModelAPI
@_exported import LocalModels
