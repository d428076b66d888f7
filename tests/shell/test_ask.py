"""`greploom ask` end to end: a real index of the Python sample, a real streaming chat server on 127.0.0.1."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from greploom.core.ask import ANSWER_ROOM, NOT_IN_CONTEXT, TOKENIZER_SLACK, ChatMessage
from greploom.core.errors import ChatError, UsageError
from greploom.shell.chat_http import OllamaChat, OpenAIChat, chat_for
from greploom.shell.config import GrepLoomConfig
from greploom.shell.tokens import count_tokens
from tests.chat_server import Messages, Script, chat_server, context_of, first_place
from tests.cli_helpers import Run, cli, cli_process

QUESTION = "where is the retry backoff computed"
PROTOCOLS = ("ollama", "openai")
MESSAGES = (ChatMessage("system", "rules"), ChatMessage("user", "Context:\n\nnothing\n\nQuestion: why"))


@pytest.fixture(scope="module")
def indexed(pyshop_cpg: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A lexical-only index of the Python sample (the retrieval is the query's whatever the embedder)."""
    db = tmp_path_factory.mktemp("ask") / "index.db"
    assert cli("index", pyshop_cpg, "--db", db, "--provider", "none").code == 0
    return db


def ask(db: Path, url: str, protocol: str, *args: str, env: dict[str, str] | None = None) -> Run:
    """``greploom ask QUESTION`` against the chat server at ``url``, in this process."""
    return cli("ask", QUESTION, "--db", db, "--chat-provider", protocol, "--chat-url", url, *args, env=env)


def one_error_line(run: Run) -> str:
    """The run's stderr, which must be exactly one greploom error line (no traceback)."""
    lines = run.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("greploom: error: "), run.err
    return lines[0]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_streams_an_answer_citing_the_context(indexed: Path, protocol: str) -> None:
    """The answer is what the model streamed, its citation checks out, and nothing is flagged."""
    with chat_server() as (url, script):
        run = ask(indexed, url, protocol)
    assert run.code == 0, run.err
    place = first_place(script.requests[0]["messages"])
    assert run.out == f"The retry backoff is computed by `backoff_delay` [{place}].\n"
    assert place == "shop/net.py:8-10"  # the hit the query finds first
    assert run.err == ""
    assert script.paths == ["/api/chat" if protocol == "ollama" else "/v1/chat/completions"]
    request = script.requests[0]
    assert request["stream"] is True
    assert request["model"] == ("llama3.2" if protocol == "ollama" else "gpt-4o-mini")
    system, user = request["messages"]
    assert system["role"] == "system" and NOT_IN_CONTEXT in system["content"]
    assert user["role"] == "user" and user["content"].endswith(f"Question: {QUESTION}")
    if protocol == "ollama":  # a window sized to the prompt, so Ollama drops none of it
        prompt = count_tokens(system["content"]) + count_tokens(user["content"])
        window = request["options"]["num_ctx"]
        assert window % 1024 == 0 and window >= prompt * TOKENIZER_SLACK + ANSWER_ROOM


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_client_yields_the_stream_piece_by_piece(protocol: str) -> None:
    """Pieces come out as the server sends them, not as one string at the end."""
    cls = OllamaChat if protocol == "ollama" else OpenAIChat
    with chat_server(Script(reply="one two three four five", piece_chars=4)) as (url, _):
        pieces = list(cls(url, "m").stream(MESSAGES))
    assert pieces == ["one ", "two ", "thre", "e fo", "ur f", "ive"]


def test_the_context_sent_is_the_query_answer(indexed: Path) -> None:
    """The model gets the blocks `greploom query` prints for the same question, and the JSON lists them."""
    with chat_server() as (url, script):
        run = ask(indexed, url, "ollama", "--format", "json")
    query = cli("query", QUESTION, "--db", indexed)
    sent = context_of(script.requests[0]["messages"])
    query_blocks = query.out.split("\n\n", 1)[1].rstrip("\n")  # less the header, whose index age moves
    assert query_blocks in sent and "## hit: function shop.net.backoff_delay (shop/net.py:8)" in sent
    blocks = run.json()["blocks"]
    assert "\n\n".join(b["text"] for b in blocks) == query_blocks
    assert blocks[0] == blocks[0] | {"file": "shop/net.py", "line": 8, "end_line": 10, "detail": "full"}


def test_json_output_shape(indexed: Path) -> None:
    """`--format json`: answer, citations with verdicts, flagged count, blocks sent, not_in_context."""

    def reply(messages: Messages) -> str:
        return f"Computed in backoff_delay [{first_place(messages)}; shop/net.py:9] and [elsewhere.py:3]."

    with chat_server(Script(reply=reply)) as (url, _):
        run = ask(indexed, url, "openai", "--format", "json")
    assert run.code == 0, run.err
    got = run.json()
    assert set(got) == {"answer", "citations", "flagged", "blocks", "not_in_context", "model"}
    assert got["answer"].startswith("Computed in backoff_delay [shop/net.py:8-10; shop/net.py:9]")
    assert got["citations"] == [
        {"file": "shop/net.py", "line": 8, "end_line": 10, "valid": True},
        {"file": "shop/net.py", "line": 9, "end_line": 9, "valid": True},
        {"file": "elsewhere.py", "line": 3, "end_line": 3, "valid": False},
    ]
    assert got["flagged"] == 1 and got["not_in_context"] is False and got["model"] == "openai:gpt-4o-mini"
    assert got["blocks"] and all(
        set(b) == {"key", "file", "line", "end_line", "detail", "text"} and b["line"] <= b["end_line"]
        for b in got["blocks"]
    )
    assert run.err == ""  # JSON carries the verdicts; stderr stays quiet


def test_a_citation_outside_the_context_is_flagged(indexed: Path) -> None:
    """A file never sent, and a line past every block of a sent file, are named after the answer."""
    reply = "It is in [shop/nowhere.py:3], see also [shop/net.py:999] and [shop/net.py:8-10]."
    with chat_server(Script(reply=reply)) as (url, _):
        run = ask(indexed, url, "ollama")
    assert run.code == 0 and run.out == reply + "\n"
    assert run.err.splitlines() == [
        "greploom: warning: citations outside the context sent (2 of 3): "
        "[shop/nowhere.py:3], [shop/net.py:999]"
    ]
    with chat_server(Script(reply=reply)) as (url, _):
        got = ask(indexed, url, "ollama", "--format", "json").json()
    assert got["flagged"] == 2 and [c["valid"] for c in got["citations"]] == [False, False, True]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_not_in_the_context_is_an_answer_marked_as_such(indexed: Path, protocol: str) -> None:
    """The fixed sentence exits 0, is marked in JSON, and gets a note (not an error) in text."""
    with chat_server(Script(reply=NOT_IN_CONTEXT)) as (url, _):
        text = ask(indexed, url, protocol)
        got = ask(indexed, url, protocol, "--format", "json")
    assert text.code == 0 and text.out == NOT_IN_CONTEXT + "\n"
    assert text.err.startswith("greploom: note: the context sent does not hold the answer; try a larger")
    assert got.code == 0 and got.json()["not_in_context"] is True and got.json()["citations"] == []


def test_a_question_nothing_matches_asks_no_model(indexed: Path) -> None:
    """With no block to send there is nothing to ask: the answer is the fixed sentence, no request made."""
    with chat_server() as (url, script):
        run = cli("ask", "zzqxv", "--db", indexed, "--chat-url", url, "--format", "json")
    assert run.code == 0, run.err
    assert run.json()["not_in_context"] is True and run.json()["blocks"] == [] and script.requests == []


def test_an_answer_without_citations_is_warned_about(indexed: Path) -> None:
    """An answer that cites nothing says so on stderr: the reader cannot check it."""
    with chat_server(Script(reply="It doubles each time.")) as (url, _):
        run = ask(indexed, url, "ollama")
    assert run.code == 0
    assert run.err == "greploom: warning: the answer cites no [file:line] of the context sent\n"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_chat_server_that_is_down(indexed: Path, protocol: str) -> None:
    """Nothing listening: one line naming the server as unreachable, exit 5, no answer printed."""
    with chat_server() as (url, _):
        dead = url
    run = ask(indexed, dead, protocol)
    assert run.code == 5 and run.out == ""
    line = one_error_line(run)
    assert f"{protocol} chat model" in line and dead in line and "is unreachable" in line


def test_query_is_unaffected_by_a_chat_server_that_is_down(indexed: Path) -> None:
    """`greploom query` never talks to the chat model, whatever its settings say."""
    with chat_server() as (url, _):
        dead = url
    run = cli("query", QUESTION, "--db", indexed, env={"GREPLOOM_CHAT_URL": dead})
    assert run.code == 0 and "## hit:" in run.out


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_http_500(indexed: Path, protocol: str) -> None:
    """An error status is one line with the status and the server's error text, exit 5."""
    with chat_server(Script(status=500)) as (url, _):
        run = ask(indexed, url, protocol)
    assert run.code == 5 and run.out == ""
    assert one_error_line(run).endswith("answered HTTP 500: injected failure")


def test_ollama_model_not_pulled(indexed: Path) -> None:
    """Ollama's 404 for a model it lacks says how to get it."""
    body = b'{"error": "model \\"llama3.2\\" not found, try pulling it first"}'
    with chat_server(Script(status=404, error_body=body)) as (url, _):
        run = ask(indexed, url, "ollama")
    assert run.code == 5 and "`ollama pull llama3.2`" in one_error_line(run)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_malformed_stream_line(indexed: Path, protocol: str) -> None:
    """A line that is not the protocol's stops the answer: what was printed ends with a newline, exit 5."""
    with chat_server(Script(malformed=True)) as (url, _):
        run = ask(indexed, url, protocol)
    assert run.code == 5 and run.out == "The ret\n"
    assert "sent a malformed stream line" in one_error_line(run)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_partial_stream(indexed: Path, protocol: str) -> None:
    """A connection closed before done / [DONE] is an error saying the answer is partial, exit 5."""
    with chat_server(Script(partial=True)) as (url, _):
        run = ask(indexed, url, protocol)
        got = ask(indexed, url, protocol, "--format", "json")
    assert run.code == 5 and run.out.startswith("The retry") and run.out.endswith("\n")
    terminator = '"done": true' if protocol == "ollama" else "`data: [DONE]`"
    assert one_error_line(run).endswith(f"ended the stream before {terminator}: the answer is partial")
    assert got.code == 5 and got.out == ""  # JSON is all or nothing


def test_openai_stream_ending_at_finish_reason_is_whole() -> None:
    """Some servers stop after finish_reason without [DONE]: that answer is complete."""
    with chat_server(Script(reply="done", no_done=True)) as (url, _):
        chat = OpenAIChat(url, "m")
        assert "".join(chat.stream(MESSAGES)) == "done" and chat.finish == "stop"


@pytest.mark.parametrize("cls", [OllamaChat, OpenAIChat])
def test_empty_answer(cls: type[OllamaChat | OpenAIChat]) -> None:
    """A stream that ends properly but holds no text is an error, not an empty answer."""
    with chat_server(Script(reply="   ")) as (url, _), pytest.raises(ChatError, match="answered nothing"):
        list(cls(url, "m").stream(MESSAGES))


def test_a_silent_server_times_out() -> None:
    """A server that sends nothing for the read timeout is reported, not waited on forever."""
    with chat_server(Script(delay_s=1.0)) as (url, _), pytest.raises(ChatError, match=r"nothing for 0.2s"):
        list(OllamaChat(url, "m", read_timeout=0.2).stream(MESSAGES))


def test_show_context_prints_what_was_sent_on_stderr(indexed: Path) -> None:
    """`--show-context`: the system prompt, the context and the question on stderr; stdout is the answer."""
    with chat_server() as (url, script):
        run = ask(indexed, url, "ollama", "--show-context")
    assert run.code == 0
    system, user = (m["content"] for m in script.requests[0]["messages"])
    assert run.err == (
        f"greploom: context sent to ollama:llama3.2:\n--- system ---\n{system}\n--- user ---\n{user}\n"
        "--- end of context ---\n"
    )
    assert run.out.startswith("The retry backoff is computed") and "--- system ---" not in run.out


def test_the_api_key_goes_to_openai_servers_only_and_is_never_shown(indexed: Path) -> None:
    """GREPLOOM_CHAT_API_KEY is the bearer token of an OpenAI-compatible server; Ollama never gets it."""
    env = {"GREPLOOM_CHAT_API_KEY": "sk-secret-123"}
    with chat_server() as (url, script):
        assert ask(indexed, url, "openai", env=env).code == 0
        assert ask(indexed, url, "ollama", env=env).code == 0
    assert script.auth == ["Bearer sk-secret-123", None]
    echo = b'{"error": {"message": "Incorrect API key provided: sk-secret-123"}}'
    with chat_server(Script(status=401, error_body=echo)) as (url, _):
        run = ask(indexed, url, "openai", env=env)
    line = one_error_line(run)
    assert run.code == 5 and "sk-secret-123" not in line and "set GREPLOOM_CHAT_API_KEY" in line


def test_chat_settings_come_from_the_environment_then_flags(indexed: Path) -> None:
    """GREPLOOM_CHAT_* set provider, model and URL; a flag wins; an unknown provider is bad usage."""
    config = GrepLoomConfig.from_env(
        {"GREPLOOM_CHAT_PROVIDER": "OpenAI", "GREPLOOM_CHAT_MODEL": "qwen", "OPENAI_API_KEY": "k1"}
    )
    assert (config.chat_provider, config.chat_model) == ("openai", "qwen")
    assert config.chat_key("https://api.openai.com/v1") == "k1"
    assert "k1" not in repr(config)
    with pytest.raises(UsageError, match="unknown chat provider 'claude'"):
        config.with_overrides(chat_provider="claude")
    with chat_server() as (url, script):
        env = {"GREPLOOM_CHAT_PROVIDER": "openai", "GREPLOOM_CHAT_URL": url, "GREPLOOM_CHAT_MODEL": "qwen"}
        assert cli("ask", QUESTION, "--db", indexed, "--chat-model", "phi", env=env).code == 0
    assert script.paths == ["/v1/chat/completions"] and script.requests[0]["model"] == "phi"
    bad = cli("ask", QUESTION, "--db", indexed, "--chat-provider", "claude")
    assert bad.code == 2 and len(bad.err.splitlines()) == 1


@pytest.mark.parametrize("url", ["localhost:11434", "ftp://host/x", "http://[::1"])
def test_a_chat_url_that_is_no_url_is_bad_usage(indexed: Path, url: str) -> None:
    """A URL without http:// (or not one at all) is a usage error naming the flag, exit 2."""
    run = cli("ask", QUESTION, "--db", indexed, "--chat-url", url)
    assert run.code == 2 and "is not an http:// or https:// URL" in one_error_line(run)


def test_an_empty_question_is_bad_usage(indexed: Path) -> None:
    """`greploom ask ''` is a usage error, and asks nobody."""
    run = cli("ask", "  ", "--db", indexed)
    assert run.code == 2 and "ask needs a question" in one_error_line(run)


def test_ask_as_a_subprocess(indexed: Path) -> None:
    """The installed command streams the answer and exits 0; a dead server is one line and exit 5."""
    with chat_server() as (url, _):
        run = cli_process("ask", QUESTION, "--db", indexed, "--chat-url", url)
        dead = url
    assert run.code == 0 and re.fullmatch(r"The retry backoff .* \[shop/net\.py:8-10\]\.\n", run.out), run.err
    down = cli_process("ask", QUESTION, "--db", indexed, "--chat-url", dead)
    assert down.code == 5 and down.out == "" and "Traceback" not in down.err
    assert len(down.err.splitlines()) == 1


def test_code_in_an_answer_is_not_a_citation(indexed: Path) -> None:
    """Brackets in inline code and fenced blocks, and `x[i:3]` (no path), are code: nothing is flagged."""
    reply = (
        "It slices `items[start:10]` and x[i:3], see [`shop/net.py:8`] and `[shop/net.py:9]`.\n"
        "```python\nnext = a[i:2]\n```\n"
    )
    with chat_server(Script(reply=reply)) as (url, _):
        text = ask(indexed, url, "ollama")
        got = ask(indexed, url, "ollama", "--format", "json").json()
    assert text.code == 0 and text.err == ""
    assert got["flagged"] == 0
    assert [(c["file"], c["line"]) for c in got["citations"]] == [("shop/net.py", 8), ("shop/net.py", 9)]


def test_citation_forms_models_write_are_checked(indexed: Path) -> None:
    """line:col, L8, #L8, a space after the colon and `8-` are read as line 8 and checked; so is an
    absolute path ending with a file sent; a made-up line in any of these forms is flagged."""
    forms = ["shop/net.py:8:3", "shop/net.py:L9", "shop/net.py: 10", "shop/net.py:8-", "shop/net.py#L8-L10"]
    absolute = ["/home/me/proj/shop/net.py:9", "/home/me/xshop/net.py:9", "shop/net.py:999:2"]
    reply = "It is computed there " + " ".join(f"[{f}]" for f in forms + absolute) + "."
    with chat_server(Script(reply=reply)) as (url, _):
        got = ask(indexed, url, "ollama", "--format", "json").json()
        text = ask(indexed, url, "ollama")
    assert [(c["file"], c["line"], c["end_line"], c["valid"]) for c in got["citations"]] == [
        ("shop/net.py", 8, 8, True),
        ("shop/net.py", 9, 9, True),
        ("shop/net.py", 10, 10, True),
        ("shop/net.py", 8, 10, True),
        ("/home/me/proj/shop/net.py", 9, 9, True),
        ("/home/me/xshop/net.py", 9, 9, False),
        ("shop/net.py", 999, 999, False),
    ]
    assert text.err.splitlines() == [
        "greploom: warning: citations outside the context sent (2 of 7): "
        "[/home/me/xshop/net.py:9], [shop/net.py:999]"
    ]


def test_openai_api_key_goes_to_openai_only(indexed: Path) -> None:
    """OPENAI_API_KEY is never sent to a server --chat-url names; GREPLOOM_CHAT_API_KEY is, as chosen."""
    with chat_server() as (url, script):
        assert ask(indexed, url, "openai", env={"OPENAI_API_KEY": "sk-openai"}).code == 0
        assert (
            cli(
                "ask",
                QUESTION,
                "--db",
                indexed,
                env={
                    "OPENAI_API_KEY": "sk-openai",
                    "GREPLOOM_CHAT_URL": url,
                    "GREPLOOM_CHAT_PROVIDER": "openai",
                },
            ).code
            == 0
        )
        env = {"OPENAI_API_KEY": "sk-openai", "GREPLOOM_CHAT_API_KEY": "sk-chosen"}
        assert ask(indexed, url, "openai", env=env).code == 0
    assert script.auth == [None, None, "Bearer sk-chosen"]
    with chat_server(Script(status=401)) as (url, _):
        line = one_error_line(ask(indexed, url, "openai", env={"OPENAI_API_KEY": "sk-openai"}))
    assert "OPENAI_API_KEY goes to api.openai.com only" in line


@pytest.mark.parametrize("url", [None, "https://api.openai.com/v1", "https://API.openai.com/v1/"])
def test_openai_api_key_goes_to_the_openai_api(url: str | None) -> None:
    """OpenAI's own API (the openai provider's default URL) does get OPENAI_API_KEY; no request leaves."""
    seen: list[tuple[str, str | None]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.host, request.headers.get("authorization")))
        return httpx.Response(
            200, content=b'data: {"choices": [{"delta": {"content": "ok"}}]}\n\ndata: [DONE]\n\n'
        )

    env = {"OPENAI_API_KEY": "sk-openai", "GREPLOOM_CHAT_PROVIDER": "openai"} | (
        {"GREPLOOM_CHAT_URL": url} if url else {}
    )
    chat = chat_for(GrepLoomConfig.from_env(env), transport=httpx.MockTransport(answer))
    assert "".join(chat.stream(MESSAGES)) == "ok"
    assert seen == [("api.openai.com", "Bearer sk-openai")]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_credentials_in_a_chat_url_are_never_printed(indexed: Path, protocol: str) -> None:
    """A URL's user, password and query string stay out of every message."""
    with chat_server() as (url, _):
        dead = url
    secret = dead.replace("http://", "http://user:hunter2@") + "/v1?api-key=s3cret"
    run = cli(
        "ask", QUESTION, "--db", indexed, "--chat-provider", protocol, env={"GREPLOOM_CHAT_URL": secret}
    )
    line = one_error_line(run)
    assert run.code == 5 and "is unreachable" in line and f"at {dead}/v1 " in line
    assert "hunter2" not in line and "user" not in line and "s3cret" not in line
    bad = cli("ask", QUESTION, "--db", indexed, "--chat-url", "ftp://user:hunter2@host/x?key=s3cret")
    assert bad.code == 2 and "hunter2" not in bad.err and "s3cret" not in bad.err
    with chat_server(Script(status=500)) as (url, _):
        secret = url.replace("http://", "http://user:hunter2@") + "?api-key=s3cret"
        line = one_error_line(ask(indexed, secret, protocol))
    assert "HTTP 500" in line and "hunter2" not in line and "s3cret" not in line


def test_mentioning_the_sentence_among_cited_claims_is_an_answer(indexed: Path) -> None:
    """An answer citing the context that also says the sentence of one part is no "not in the context"."""
    reply = (
        "The delay doubles with each attempt [shop/net.py:8-10]. "
        f"{NOT_IN_CONTEXT[:-1]} to why it starts at half a second."
    )
    with chat_server(Script(reply=reply)) as (url, _):
        got = ask(indexed, url, "ollama", "--format", "json").json()
        text = ask(indexed, url, "ollama")
    assert got["not_in_context"] is False and got["flagged"] == 0
    assert text.code == 0 and text.err == ""


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("line_end", ["\r", "\r\n"])
def test_lines_ended_by_cr_or_crlf(indexed: Path, protocol: str, line_end: str) -> None:
    """The SSE spec allows CR LF, LF or CR alone to end a line: each reads as a whole answer."""
    with chat_server(Script(line_end=line_end)) as (url, _):
        run = ask(indexed, url, protocol)
    assert run.code == 0, run.err
    assert run.out == "The retry backoff is computed by `backoff_delay` [shop/net.py:8-10].\n"


def test_a_cr_lf_split_across_chunks_is_one_line_end() -> None:
    """A CR ending one chunk and the LF starting the next end one line, not two (no stray blank line)."""
    chunks = [
        b'{"message": {"content": "a"}, "done": false}\r',
        b'\n{"message": {"content": "b"}, ',
        b'"done": false}\r',
        b'\r{"message": {"content": ""}, "done": true}',
    ]

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=iter(chunks))

    chat = OllamaChat("http://ollama.test", "m", transport=httpx.MockTransport(answer))
    assert list(chat.stream(MESSAGES)) == ["a", "b"]
    sse = [
        b'data: {"choices": [{"delta": {"content": "a"}}]}\r',
        b"\n\r",
        b'\ndata: {"choices": [{"delta": {"content": "b"}}]}\r\r',
        b"data: [DONE]\r\r",
    ]

    def events(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=iter(sse))

    openai = OpenAIChat("http://vllm.test", "m", transport=httpx.MockTransport(events))
    assert list(openai.stream(MESSAGES)) == ["a", "b"]


def test_an_sse_error_event_reports_the_servers_message(indexed: Path) -> None:
    """`event: error` mid-answer is the server's failure, quoted, exit 5: not a "malformed line"."""
    with chat_server(Script(error_event='{"message": "overloaded"}')) as (url, _):
        run = ask(indexed, url, "openai")
    assert run.code == 5 and run.out == "The ret\n"
    assert one_error_line(run).endswith("answered: overloaded")
    with (
        chat_server(Script(reply="partial answer", error_event="upstream timed out")) as (url, _),
        pytest.raises(ChatError, match=r"answered: upstream timed out$"),
    ):
        list(OpenAIChat(url, "m").stream(MESSAGES))


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize(
    "body", [b'{"error": {"message": null}}', b'{"error": {}}', b'{"error": {"message": " "}}']
)
def test_an_error_status_without_a_message(indexed: Path, protocol: str, body: bytes) -> None:
    """An error body whose message is null or empty: the status's reason, never "None"."""
    with chat_server(Script(status=500, error_body=body)) as (url, _):
        run = ask(indexed, url, protocol)
    line = one_error_line(run)
    assert run.code == 5 and line.endswith("answered HTTP 500: Internal Server Error"), line


def test_ollama_done_line_with_a_null_message(indexed: Path) -> None:
    """`{"message": null, "done": true}` ends the answer with no more text; it is not malformed."""
    with chat_server(Script(null_done_message=True)) as (url, _):
        run = ask(indexed, url, "ollama")
    assert run.code == 0, run.err
    assert run.out == "The retry backoff is computed by `backoff_delay` [shop/net.py:8-10].\n"
