"""Drives `quanta serve` with the official `ollama` Python package, as Ollama applications do.

usage: ollama_client.py BASE_URL MODEL [think]
Prints one JSON object with what the client parsed; OllamaClientTests checks it against the
Swift API's own answers. Any exception (a response the client cannot parse) exits non-zero.
"""
import json
import sys
import urllib.request

import ollama

base_url, model = sys.argv[1], sys.argv[2]
client = ollama.Client(host=base_url, timeout=120)
out = {}

if sys.argv[3:] == ["think"]:
    # A thinking model: `think` puts the think block in message.thinking (streamed as pieces of
    # it), `think: false` turns thinking off, and /api/generate answers `thinking` beside `response`.
    hello = [{"role": "user", "content": "hello"}]
    for name, think in [("on", True), ("off", False), ("high", "high"), ("absent", None)]:
        r = client.chat(model=model, messages=hello, think=think, options={"temperature": 0, "num_predict": 100}, stream=False)
        out[name] = {"thinking": r.message.thinking, "content": r.message.content, "eval_count": r.eval_count}
    parts = list(client.chat(model=model, messages=hello, think=True, options={"temperature": 0, "num_predict": 100}, stream=True))
    out["stream"] = {"thinking": "".join(p.message.thinking or "" for p in parts),
                     "content": "".join(p.message.content or "" for p in parts),
                     "thinking_pieces": sum(1 for p in parts if p.message.thinking)}
    r = client.generate(model=model, prompt="hello", think=True, options={"temperature": 0, "num_predict": 100}, stream=False)
    out["generate"] = {"thinking": r.thinking, "response": r.response}
    try:
        client.chat(model=model, messages=hello, think="very", stream=False)
        out["bad_level"] = None
    except ollama.ResponseError as e:
        out["bad_level"] = {"status": e.status_code, "error": e.error}
    print(json.dumps(out))
    sys.exit(0)

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

# Tools: offered as OpenAI's function objects; SmolLM2 answers this question in text (the tool
# calls' own shape is checked by OllamaResponseShapeTests). A conversation where the assistant
# called the tool (arguments as an object, no id) and the tool answered (`tool_name`) gets the
# same text answer as the same conversation on the OpenAI endpoint (no tools offered then, so
# SmolLM2 answers from the tool's output instead of calling again).
weather = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
ask = [{"role": "user", "content": "What is the weather in Paris?"}]
r = client.chat(model=model, messages=ask, tools=[weather], options={"temperature": 0, "num_predict": 32}, stream=False)
out["tools"] = {"content": r.message.content, "calls": len(r.message.tool_calls or [])}
called = ollama.Message(role="assistant", content="", tool_calls=[
    ollama.Message.ToolCall(function=ollama.Message.ToolCall.Function(name="get_weather", arguments={"city": "Paris"}))])
r = client.chat(model=model, messages=ask + [called, {"role": "tool", "content": "sunny, 21 C", "tool_name": "get_weather"}],
                options={"temperature": 0, "num_predict": 32}, stream=False)
out["tool_followup"] = r.message.content


def openai_chat(body):
    request = urllib.request.Request(base_url + "/v1/chat/completions", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.load(response)["choices"][0]["message"]


out["tools_openai"] = openai_chat({"messages": ask, "tools": [weather], "temperature": 0, "max_tokens": 32})["content"]
out["tool_followup_openai"] = openai_chat({"messages": ask + [
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
                                                           "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "sunny, 21 C"}], "temperature": 0, "max_tokens": 32})["content"]

# The model list and the version.
out["tags"] = [m.model for m in client.list().models]
out["version"] = client._request_raw("GET", "/api/version").json()["version"]

# Errors: an unknown model, num_ctx above the window, an option that does not exist, thinking
# asked of a model without a think block.
errors = {}
for name, call in [("model", lambda: client.chat(model="llama3", messages=question)),
                   ("num_ctx", lambda: client.chat(model=model, messages=question, options={"num_ctx": 10 ** 6}, stream=False)),
                   ("option", lambda: client.chat(model=model, messages=question, options={"mirostat_tau": 5}, stream=False)),
                   ("think", lambda: client.chat(model=model, messages=question, think=True, stream=False))]:
    try:
        call()
        errors[name] = None
    except ollama.ResponseError as e:
        errors[name] = {"status": e.status_code, "error": e.error}
out["errors"] = errors
print(json.dumps(out))
