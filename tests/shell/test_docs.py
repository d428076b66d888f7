"""Docs and config as first-class nodes: indexed by section, linked to code, secrets never stored.

A real project: the pyshop sample's code (built by treeloom) with a README,
a reStructuredText runbook, config files of five formats and secret files,
indexed as users do (`greploom index DIR`), lexical only so answers do not
depend on a model.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.cli_helpers import cli

SAMPLES = Path(__file__).resolve().parents[1] / "samples"

README = """\
# Shop

A tiny shop.

## Install

Run `pip install shop`.

### Offline

Copy the wheel and run `pip install --no-index shop.whl`.

## Usage

Create a `Cart`, add items with `Cart.add_item`, and read `Cart.total`.
Orders are sent by `send_order` (see shop/net.py).

```text
-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEAplantedPemBody0123456789
-----END RSA PRIVATE KEY-----
```
"""
RUNBOOK = """\
=======
Runbook
=======

Failover
--------

When the primary database fails, promote the replica and restart the worker.
The retry delay between attempts comes from ``backoff_delay``.

Credentials
-----------

The deploy token is ``ghp_PlantedGithubToken0123456789abcdefXYZ`` (rotate it monthly).
"""
INVENTORY = "[workers]\nworker1.example.com\nworker2.example.com\n\n[web]\nweb1.example.com\n"
COMPOSE = """\
services:
  worker:
    image: shop-worker
    environment:
      DB_PASSWORD: Planted7Compose7Password
      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-Planted7Default}
      DATABASE_URL: postgres://app:Planted7UrlPass@db/app
      TLS_KEY: |
        Planted7BlockScalarLine
  web:
    image: shop-web
"""
PYPROJECT = '[project]\nname = "shop"\nversion = "1.0"\n\n[tool.shop]\nretries = 3\n'
SECRETS = (
    "Planted7Compose7Password",
    "ghp_PlantedGithubToken0123456789abcdefXYZ",
    "plantedPemBody0123456789",
    "PlantedDotEnvValue",
    "PlantedKeyFile",
    "Planted7Default",
    "Planted7UrlPass",
    "Planted7BlockScalarLine",
    "Planted7DynaconfValue",
)
WORKFLOW = """\
name: CI
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: python -m pytest
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(SAMPLES / "pyshop", root)
    (root / "docs").mkdir()
    (root / "deploy").mkdir()
    (root / "README.md").write_text(README)
    (root / "docs" / "runbook.rst").write_text(RUNBOOK)
    (root / "deploy" / "inventory.ini").write_text(INVENTORY)
    (root / "deploy" / "compose.yml").write_text(COMPOSE)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / ".env").write_text("SECRET_KEY=PlantedDotEnvValue\n")
    (root / ".env.example").write_text("SECRET_KEY=\nDEBUG=0\n")
    (root / "id_rsa").write_text("PlantedKeyFile\n")
    (root / ".secrets.toml").write_text('token = "Planted7DynaconfValue"\n')
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "ci.yml").write_text(WORKFLOW)
    (root / "deploy" / "tls.pem").write_text("PlantedKeyFile\n")
    return root


def _index(project: Path) -> tuple[Path, str]:
    db = project.parent / "idx" / "index.db"
    run = cli("index", project, "--db", db, "--provider", "none")
    assert run.code == 0, run.err
    return db, run.err


def test_sections_are_indexed_and_secrets_never_stored(project: Path) -> None:
    db, err = _index(project)
    assert "doc and config files" in err
    assert "masked 6 secret-shaped values" in err
    assert "skipped 4 secret files" in err
    for path in db.parent.iterdir():  # the index, its WAL, the CPG parts, the lock
        data = path.read_bytes()
        for secret in SECRETS:
            assert secret.encode() not in data, f"{secret} is in {path.name}"
    shown = cli("query", "deploy token credentials", "--db", db, "--include-source").out
    assert "[masked]" in shown and "ghp_" not in shown


def test_a_doc_question_gets_the_right_section_first(project: Path) -> None:
    db, _ = _index(project)
    first = cli("query", "how do I install offline without network", "--db", db, "--format", "json")
    top = first.json()["results"][0]
    assert top["kind"] == "doc"
    assert top["name"] == "Offline"
    assert top["key"] == "doc:README.md:README > Shop > Install > Offline"
    assert (top["file"], top["line"]) == ("README.md", 9)
    hosts = cli("query", "which hosts in the inventory run the workers", "--db", db, "--format", "json")
    assert hosts.json()["results"][0]["file"] == "deploy/inventory.ini"
    tool = cli("query", "pyproject tool.shop retries setting", "--db", db, "--format", "json")
    top = tool.json()["results"][0]
    assert (top["kind"], top["file"]) == ("config", "pyproject.toml")


def test_a_doc_hit_expands_to_the_code_it_names(project: Path) -> None:
    db, _ = _index(project)
    run = cli("query", "runbook failover promote replica", "--db", db, "--format", "json", "--top-k", "1")
    results = run.json()["results"]
    assert results[0]["key"] == "doc:docs/runbook.rst:runbook > Runbook > Failover"
    mentioned = {r["key"]: r for r in results if r["relationship"] == "mentions"}
    assert "function:shop/net.py:backoff_delay" in mentioned
    structure = results[0]["structural_context"]
    assert [m["key"] for m in structure["mentions"]] == ["function:shop/net.py:backoff_delay"]
    text = cli("query", "runbook failover promote replica", "--db", db, "--top-k", "1").out
    assert "named in runbook > Runbook > Failover" in text


def test_code_brings_its_documentation(project: Path) -> None:
    db, _ = _index(project)
    run = cli("query", "--node", "function:shop/cart.py:Cart.add_item", "--db", db, "--format", "json")
    docs = [r for r in run.json()["results"] if r["relationship"] == "documented_by"]
    assert [d["key"] for d in docs] == ["doc:README.md:README > Shop > Usage"]
    usage = cli("query", "--node", "doc:README.md:README > Shop > Usage", "--db", db, "--format", "json")
    named = {m["key"] for m in usage.json()["results"][0]["structural_context"]["mentions"]}
    # `Cart`, `Cart.add_item`, `Cart.total` and shop/net.py; `send_order` too. Never a guess:
    # the bare `total` names two methods (Cart.total, GiftCart.total) and links neither.
    assert named == {
        "class:shop/cart.py:Cart",
        "function:shop/cart.py:Cart.add_item",
        "function:shop/cart.py:Cart.total",
        "function:shop/net.py:send_order",
        "module:shop/net.py",
    }


def test_a_changed_doc_is_reindexed_and_stale_until_then(project: Path) -> None:
    db, _ = _index(project)
    readme = project / "README.md"
    readme.write_text(README.replace("### Offline", "### Air-gapped"))
    stale = cli("query", "install offline wheel", "--db", db, "--format", "json").json()
    top = stale["results"][0]
    assert top["file"] == "README.md" and top["stale"] is True
    run = cli("index", project, "--db", db, "--provider", "none")
    assert run.code == 0 and "0 deleted" not in run.err
    fresh = cli("query", "install air-gapped wheel", "--db", db, "--format", "json").json()
    assert fresh["results"][0]["key"] == "doc:README.md:README > Shop > Install > Air-gapped"
    assert fresh["results"][0]["stale"] is False


def test_bounds_and_parse_failures_are_counted(project: Path) -> None:
    (project / "docs" / "huge.md").write_text("# Huge\n\n" + "word " * 120_000)
    (project / "deploy" / "chart.yaml").write_text("name: {{ .Values.name }}\n  bad: [\n")
    db, err = _index(project)
    assert "skipped 1 too large: docs/huge.md" in err
    assert "did not parse and are indexed whole: deploy/chart.yaml" in err
    run = cli("query", "the chart yaml Values name", "--db", db, "--format", "json")
    assert run.json()["results"][0]["key"] == "config:deploy/chart.yaml:chart"


def test_a_small_config_file_is_one_section_with_every_line(project: Path) -> None:
    db, _ = _index(project)
    run = cli("query", "ci workflow yaml runs pytest on push", "--db", db, "--format", "json")
    top = run.json()["results"][0]
    assert (top["key"], top["line"]) == ("config:.github/workflows/ci.yml:ci", 1)
    shown = cli("query", "--node", top["key"], "--db", db, "--include-source").out
    assert "on: [push, pull_request]" in shown and "python -m pytest" in shown


def test_kept_parses_are_used_and_a_damaged_one_is_parsed_again(project: Path) -> None:
    """The docs' parses are kept beside the index by content; one that cannot be read is not trusted."""
    import apsw

    db, _ = _index(project)
    parts = db.with_name("index.parts.db")
    conn = apsw.Connection(str(parts))
    kept = dict(conn.execute("SELECT file, content FROM doc_parses"))
    assert "docs/runbook.rst" in kept and "README.md" in kept
    conn.execute("UPDATE doc_parses SET data = 'not json' WHERE file = 'docs/runbook.rst'")
    conn.close()
    (project / "shop" / "net.py").write_text((project / "shop" / "net.py").read_text() + "\n# edited\n")
    again = cli("index", project, "--db", db, "--provider", "none")
    assert again.code == 0, again.err
    run = cli("query", "runbook failover promote replica", "--db", db, "--format", "json", "--top-k", "1")
    assert run.json()["results"][0]["key"] == "doc:docs/runbook.rst:runbook > Runbook > Failover"
    (project / "README.md").unlink()
    assert cli("index", project, "--db", db, "--provider", "none").code == 0
    conn = apsw.Connection(str(parts))
    assert "README.md" not in dict(conn.execute("SELECT file, content FROM doc_parses"))
    conn.close()
