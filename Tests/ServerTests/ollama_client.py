"""Drives `quanta serve` with the official `ollama` Python package, as Ollama applications do.

usage: ollama_client.py BASE_URL MODEL
Prints one JSON object with what the client parsed; OllamaClientTests checks it against the
Swift API's own answers. Any exception (a response the client cannot parse) exits non-zero.
"""
import json
import sys

import ollama

base_url, model = sys.argv[1], sys.argv[2]
client = ollama.Client(host=base_url, timeout=120)
out = {}

question = [{"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "What is the capital of France?"}]
greedy = {"temperature": 0, "num_predict": 24}

# /api/chat whole, then streamed (NDJSON lines): the pieces must add up to the same answer.
r = client.chat(model=model, messages=question, options=greedy, stream=False)
out["chat"] = {"content": r.message.content, "role": r.message.role, "done": r.done, "done_reason": r.done_reason,
               "prompt_eval_count": r.prompt_eval_count, "eval_count": r.eval_count}
pieces, last = [], None
for part in client.chat(model=model + ":latest", messages=question, options=greedy, stream=True):
    if not part.done:
        pieces.append(part.message.content)
    last = part
out["chat_stream"] = {"content": "".join(pieces), "pieces": len(pieces), "done": last.done,
                      "done_reason": last.done_reason, "eval_count": last.eval_count}

# /api/generate: a prompt (and system) through the chat template, whole and streamed.
r = client.generate(model=model, prompt="What is the capital of France?", system="You are a helpful assistant.",
                    options=greedy, stream=False)
out["generate"] = {"response": r.response, "done": r.done, "eval_count": r.eval_count}
out["generate_stream"] = "".join(p.response for p in client.generate(
    model=model, prompt="What is the capital of France?", system="You are a helpful assistant.", options=greedy, stream=True)
    if not p.done)

# format: a JSON schema enforced by constrained decoding.
schema = {"type": "object", "properties": {"city": {"type": "string"}, "population": {"type": "integer"}},
          "required": ["city", "population"]}
r = client.chat(model=model, messages=[{"role": "user", "content": "Describe Paris as JSON."}], format=schema,
                options={"temperature": 0, "num_predict": 60}, stream=False)
out["format"] = json.loads(r.message.content)
# format "json": any JSON object, even when the prompt asks for an array.
r = client.chat(model=model, messages=[{"role": "user", "content": "Give a JSON array of three colours."}], format="json",
                options={"temperature": 0, "num_predict": 48}, stream=False)
out["format_json"] = json.loads(r.message.content)

# The model list and the version.
out["tags"] = [m.model for m in client.list().models]
out["version"] = client._request_raw("GET", "/api/version").json()["version"]

# Errors: an unknown model, num_ctx above the window, an option that does not exist.
errors = {}
for name, call in [("model", lambda: client.chat(model="llama3", messages=question)),
                   ("num_ctx", lambda: client.chat(model=model, messages=question, options={"num_ctx": 10 ** 6}, stream=False)),
                   ("option", lambda: client.chat(model=model, messages=question, options={"mirostat_tau": 5}, stream=False))]:
    try:
        call()
        errors[name] = None
    except ollama.ResponseError as e:
        errors[name] = {"status": e.status_code, "error": e.error}
out["errors"] = errors
print(json.dumps(out))
