"""Faults of issue 12 in the machine under the index: read-only media, missing permissions, a
full disk, a file-size limit, a damaged or truncated file, an interrupted run. Each is its real
reason in one line with its own exit code, and the old index answers as before afterwards."""

from __future__ import annotations

import contextlib
import hashlib
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from greploom.shell.progress import is_stage_line
from tests.cli_helpers import GREPLOOM, cli, cli_process
from tests.embed_server import Faults, embedding_server


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def answer(db: Path) -> list[dict[str, object]]:
    """The results of one fixed query: what 'the old index answers as before' compares."""
    run = cli("query", "retry backoff", "--db", db, "--format", "json")
    assert run.code == 0, run.err
    results: list[dict[str, object]] = run.json()["results"]
    return results


def without_progress(err: str) -> str:
    """stderr less the plain progress lines of an index run's stages."""
    return "".join(line for line in err.splitlines(keepends=True) if not is_stage_line(line.rstrip("\n")))


def one_line(err: str) -> bool:
    err = without_progress(err)
    return err.count("\n") == 1 and err.startswith("greploom: error: ") and "internal error" not in err


@contextlib.contextmanager
def tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A real tmpfs mounted at ``where`` (the test is skipped where mounting is not allowed)."""
    where.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True, check=False
    )
    if mounted.returncode != 0:
        pytest.skip(f"this machine does not let tests mount a tmpfs: {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


def test_a_read_only_mount(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Cases 6-7: on a read-only mount `index` says read-only (exit 7); query, status and check work."""
    with tmpfs(tmp_path / "mnt", "16m") as mnt:
        db = mnt / "d.db"
        assert cli("index", pyshop_cpg, "--db", db, "--provider", "none").code == 0
        before, sha = answer(db), digest(db)
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        run = cli("index", pyshop_cpg, "--db", db, "--provider", "none", "--force")
        assert run.code == 7 and one_line(run.err) and "read-only" in run.err, run.err
        assert answer(db) == before
        assert cli("status", "--db", db).code == 0
        assert cli("check", "--db", db).code == 0
        assert digest(db) == sha


def _as_another_user() -> list[str]:
    """The command prefix that runs a process without root's right to write anything."""
    if os.geteuid() != 0:
        return []
    probe = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", str(GREPLOOM), "--version"],
        capture_output=True,
        check=False,
    )
    if probe.returncode != 0:
        pytest.skip("the nobody user cannot run this checkout's greploom here")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def test_a_folder_without_write_permission(pyshop_cpg: Path) -> None:
    """Cases 6-7: without write permission `index` says so (exit 6); query and status still answer."""
    prefix = _as_another_user()
    folder = Path(tempfile.mkdtemp(prefix="greploom-ro-"))
    try:
        cpg = folder / "c.json"
        shutil.copy(pyshop_cpg, cpg)
        db = folder / "d.db"
        assert cli("index", cpg, "--db", db, "--provider", "none").code == 0
        for path in (folder, *folder.iterdir()):
            path.chmod(0o755 if path.is_dir() else 0o644)
        sha = digest(db)

        def run(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [*prefix, str(GREPLOOM), *args, "--db", str(db)], capture_output=True, text=True, check=False
            )

        index = run("index", str(cpg), "--force")
        assert index.returncode == 6 and one_line(index.stderr) and "permission denied" in index.stderr
        query = run("query", "retry backoff", "--format", "json")
        assert query.returncode == 0, query.stderr
        assert '"function:shop/net.py:backoff_delay"' in query.stdout
        assert run("status").returncode == 0
        assert digest(db) == sha
    finally:
        shutil.rmtree(folder)


def test_a_full_disk(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Case 6: a full disk is exit 8 'no space left', the old index answers as before, and check is clean."""
    with tmpfs(tmp_path / "mnt", "4m") as mnt:
        db = mnt / "d.db"
        assert cli("index", pyshop_cpg, "--db", db, "--provider", "none").code == 0
        before = answer(db)
        with contextlib.suppress(OSError), (mnt / "filler").open("wb") as filler:
            while True:
                filler.write(b"\0" * 65536)
                filler.flush()
        run = cli("index", pyshop_cpg, "--db", db, "--provider", "none", "--force")
        assert run.code == 8 and one_line(run.err) and "no space left" in run.err, run.err
        assert answer(db) == before
        (mnt / "filler").unlink()
        assert cli("check", "--db", db).code == 0
        assert cli("index", pyshop_cpg, "--db", db, "--provider", "none", "--force").code == 0


def test_a_file_size_limit(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Case 6: `ulimit -f` is exit 8 naming the file-size limit; the old index answers as before."""
    db = tmp_path / "d.db"
    assert cli("index", pyshop_cpg, "--db", db, "--provider", "none").code == 0
    before = answer(db)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384))

    done = subprocess.run(
        [str(GREPLOOM), "index", str(pyshop_cpg), "--db", str(db), "--provider", "none", "--force"],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        check=False,
        timeout=120,
    )
    assert done.returncode == 8 and one_line(done.stderr) and "file-size limit" in done.stderr, done.stderr
    assert answer(db) == before


def test_the_lock_path_being_a_directory(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Case 6: a directory where the lock file goes is one line saying so (exit 4), not a bug."""
    db = tmp_path / "d.db"
    (tmp_path / "d.db.lock").mkdir()
    run = cli("index", pyshop_cpg, "--db", db, "--provider", "none")
    assert run.code == 4 and one_line(run.err) and "directory" in run.err, run.err


def _flip(db: Path, offset: int, size: int = 4096) -> None:
    data = bytearray(db.read_bytes())
    for i in range(offset, min(offset + size, len(data))):
        data[i] ^= 0xFF
    db.write_bytes(bytes(data))


def test_a_damaged_index_is_noticed_and_repaired(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Case 8: 4 KiB flipped: index refuses (exit 4, says --force), check names it, --force rebuilds."""
    db = tmp_path / "d.db"
    assert cli("index", pyshop_cpg, "--db", db).code == 0
    before = answer(db)
    size = db.stat().st_size
    _flip(db, (size // 2) // 4096 * 4096)
    run = cli("index", pyshop_cpg, "--db", db)
    assert run.code == 4 and one_line(run.err) and "damaged" in run.err and "--force" in run.err, run.err
    query = cli("query", "retry backoff", "--db", db)
    assert query.code in (0, 4) and "internal error" not in query.err
    checked = cli("check", "--db", db)
    assert checked.code == 4 and "problem: " in checked.out and "damaged" in checked.out
    assert "--force" in checked.out
    forced = cli("index", pyshop_cpg, "--db", db, "--force")
    assert forced.code == 0, forced.err
    assert "moved it to" in forced.err and (tmp_path / "d.db.damaged").exists()
    assert answer(db) == before
    assert cli("check", "--db", db).code == 0


def test_a_truncated_index_is_noticed_and_repaired(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Case 8: a truncated index gives one 'damaged' line everywhere (exit 4), and --force rebuilds it."""
    db = tmp_path / "d.db"
    assert cli("index", pyshop_cpg, "--db", db, "--provider", "none").code == 0
    before = answer(db)
    with db.open("r+b") as handle:
        handle.truncate(db.stat().st_size // 2)
    for args in (("query", "retry backoff"), ("status",), ("index", str(pyshop_cpg))):
        run = cli(*args, "--db", db)
        assert run.code == 4 and one_line(run.err) and "damaged" in run.err, (args, run.err)
    assert cli("check", "--db", db).code == 4
    assert cli("index", pyshop_cpg, "--db", db, "--provider", "none", "--force").code == 0
    assert answer(db) == before


def test_an_index_whose_first_run_failed_says_so(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Case 9: after a failed first run, a query answers from what was stored and says the build
    stopped (never a silent 'no code matched'); status and check call the index incomplete."""
    db = tmp_path / "d.db"
    with embedding_server(Faults(status=500)) as (url, _):
        first = cli("index", pyshop_cpg, "--db", db, "--provider", "ollama", "--ollama-url", url)
    assert first.code == 5
    run = cli("query", "retry backoff", "--db", db)
    assert run.code == 0, run.err
    assert "vectors: 0% (the build stopped: run greploom index)" in run.out.splitlines()[0]
    assert "backoff_delay" in run.out  # searchable by its words meanwhile
    status = cli("status", "--db", db, "--format", "json").json()
    assert status["complete"] is False and str(status["build"]).startswith("stopped")
    checked = cli("check", "--db", db)
    assert checked.code == 4 and "incomplete" in checked.out


def test_an_interrupted_run_says_so(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Case 17: Ctrl-C during a run prints 'greploom: interrupted' and exits 130 at once."""
    db, url_flag = tmp_path / "d.db", "--ollama-url"
    with embedding_server(Faults(delay_s=30)) as (url, faults):
        proc = subprocess.Popen(
            [str(GREPLOOM), "index", str(pyshop_cpg), "--db", str(db), "--provider", "ollama", url_flag, url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(600):  # until the run is waiting for the embedder
            if faults.requests or proc.poll() is not None:
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)  # far below the server's 30 s
    assert proc.returncode == 130 and without_progress(err).strip() == "greploom: interrupted"
    assert cli_process("status", "--db", db).code == 0
