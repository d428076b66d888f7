"""`greploom ask` end to end: a real index of the Python sample, a real streaming chat server on 127.0.0.1."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from greploom.core.ask import NOT_IN_CONTEXT, ChatMessage
from greploom.core.errors import ChatError, UsageError
from greploom.shell.chat_http import OllamaChat, OpenAIChat
from greploom.shell.config import GrepLoomConfig
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
        assert request["options"]["num_ctx"] % 1024 == 0 and request["options"]["num_ctx"] >= 4096


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
    assert (config.chat_provider, config.chat_model, config.chat_api_key) == ("openai", "qwen", "k1")
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
