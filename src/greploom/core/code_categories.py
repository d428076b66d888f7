"""What kind of code a definition is, by its path and kind: product code, or a test, an example...

Ranking demotes what is not product code unless the question asks for it
(greploom.core.ranking's ``penalty``), and the candidate pool reaches past
it when it crowds a question's top (greploom.core.candidate_pool). The
categories, by each language's conventions:

- ``test``: ``tests/``, ``__tests__/``, ``spec/``, ``testdata/``, mocks,
  ``test_x.py``, ``x_test.go``, ``x.spec.ts``, ``FooTest.java``...;
- ``example``: ``examples/``, ``samples/``, ``demos/``, ``docs/``, ``benchmarks/``;
- ``vendored``: ``vendor/``, ``third_party/``, ``node_modules/``;
- ``generated``: protobuf and other generated files, ``dist/``, ``build/``;
- ``compat``: ``compat``, ``six``, ``py2``, ``legacy`` modules;
- ``stub``: type stubs (``.pyi``, ``.d.ts``);
- ``doc`` and ``config``: a section of a doc or config file (its kind:
  greploom.core.doc_files), unless its path makes it a test, vendored or
  generated (a fixture's YAML stays a test, which questions about config
  do not lift).

Each category has the words a question asks for it by (:func:`asked_for`).
Laws: with the ranking's (tests/properties/test_ranking.py).
"""

from __future__ import annotations

import re

from greploom.core.doc_files import PROSE_KINDS

NON_PRODUCT_PENALTY = 0.5  # tests, examples, vendored... code, when not asked for (greploom.core.ranking)

_CATEGORIES: dict[str, re.Pattern[str]] = {
    # Each language's conventions: tests/ and __tests__/ folders, test_x.py,
    # x_test.go, x_spec.rb, x_unittest.cc, x.test.ts, x.spec.js (Java's and
    # C#'s FooTest.java need the case, see _CAMEL_TEST), Go's testdata/, mocks.
    # A testing.py module is product code: click's and flask's hold the runners and clients
    # their users test with, public API a question need not say "test" to ask for (as test
    # code it lifted "read a single key press from the terminal" past click's EchoingStdin,
    # NDCG@10 0.8316 -> 0.8331, and would demote CliRunner.invoke for every other question).
    "test": re.compile(
        r"(^|/)(tests?|testing|__tests__|spec|specs|testdata|__mocks__|mocks?)(/|$)"
        r"|(^|/)(test_[^/]*|[^/]*_(tests?|spec)\.\w+|[^/]*\.(test|spec)\.\w+|conftest\.py)$"
        # Chromium's C++ convention only: astroid's brain_unittest.py is product code.
        r"|_unittest\.(cc|cpp|cxx|c|mm)$"
    ),
    "example": re.compile(r"(^|/)(examples?|samples?|demos?|docs?|benchmarks?)(/|$)"),
    "vendored": re.compile(r"(^|/)(_?vendor(ed)?|third_party|extern(al)?|node_modules)(/|$)"),
    # Generated code and build output (dist/ and build/ hold copies of the sources).
    "generated": re.compile(
        r"(^|/)[^/]*(_pb2|_pb2_grpc|_generated|\.gen|\.min|\.pb|\.generated|\.g)\.\w+$"
        r"|(^|/)(zz_generated[^/]*|[^/]*\.bundle\.js)$|(^|/)(generated|dist|build)(/|$)"
    ),
    "compat": re.compile(r"(^|/)(_?compat|six|py2|legacy)(\.\w+|/|$)"),
    # Declarations of code that lives elsewhere: attrs ships a .pyi beside each
    # module, and its stubs filled 42 of the 150 top-5 places of its queries.
    "stub": re.compile(r"\.pyi$|\.d\.[cm]?ts$"),
}
# FooTest.java, FooTests.cs, FooSpec.scala, FooIT.java: by case, so Latest.java is not a test.
_CAMEL_TEST = re.compile(
    r"(^|/)[A-Za-z0-9_]*[a-z0-9](Test|Tests|Spec|IT)\.(java|kt|kts|scala|groovy|swift|cs|php)$"
)
_ASKS_FOR: dict[str, frozenset[str]] = {
    "test": frozenset({"test", "tests", "testing", "fixture", "fixtures", "pytest", "spec", "mock"}),
    "example": frozenset({"example", "examples", "sample", "demo", "docs", "benchmark"}),
    "vendored": frozenset({"vendor", "vendored", "third", "party"}),
    "generated": frozenset({"generated", "pb2", "protobuf"}),
    "compat": frozenset({"compat", "compatibility", "legacy", "py2", "six"}),
    "stub": frozenset({"stub", "stubs", "pyi", "typing", "declaration", "declarations"}),
    # Doc and config sections (kinds doc and config: greploom.core.doc_files), each by what a
    # question about it says. "config" lifts config sections, not docs: flask's "load config
    # from a python file" asks for Config.from_pyfile, and lifting its guide's "Configuring
    # from Python Files" over it cost that question 0.13 NDCG@10. Measured with
    # benchmarks/bench_docs.py (18 doc questions; --code-questions: 20 of the harness's flask
    # questions on the same tree, 0.885 NDCG@10 without its docs): these words, hit@1 13/18,
    # hit@3 18/18, code 0.881; with "config" too, 13/18, 18/18, code 0.874; without
    # "configuration", "configure", "setting(s)", "environment", "env", 10/18, 15/18, 0.899.
    "doc": frozenset(
        {
            "doc", "docs", "documentation", "documented", "readme", "guide", "tutorial", "manual",
            "howto", "faq", "runbook", "playbook", "changelog", "instructions", "install",
            "installation", "installing", "deploy", "deployment", "deploying", "license",
            "contributing", "section", "say", "says", "configuration", "configure", "setting",
            "settings", "environment", "env",
        }
    ),
    "config": frozenset(
        {
            "config", "configuration", "configure", "configured", "setting", "settings",
            "environment", "env", "hosts", "inventory", "docker", "dockerfile", "compose", "ci",
            "workflow", "yaml", "toml", "ini", "pyproject", "tox", "lint", "deploy", "deployment",
            "install", "dependencies",
        }
    ),
}


# The categories a doc or config section keeps from its path instead of its kind's.
_OWN_CATEGORY = frozenset(("test", "vendored", "generated"))


def path_category(file: str) -> str | None:
    """Which kind of non-product code a path holds (test, example, ...), or None."""
    if _CAMEL_TEST.search(file):
        return "test"
    lowered = file.lower()
    for category, pattern in _CATEGORIES.items():
        if pattern.search(lowered):
            return category
    return None


def asked_for(category: str, words: frozenset[str]) -> bool:
    """Whether a query's words ask for code of a non-product category (``test``, ``example``...)."""
    return bool(words & _ASKS_FOR[category])


# A question whose head asks for tests ("tests that the sandbox refuses...", "which test checks
# ...", "find the unit tests of ...") wants test code first, not only let in: its first word
# past these is test or tests, and the next word, if any, says what the tests do or are of.
# Not "how does the test client run an ASGI app", "is the test client thread safe" nor "the
# mapping of template test names", where the word names product code; not "spec" or "pytest",
# which head questions about a protocol's spec or about pytest's own code.
_HEAD_SKIPS = frozenset(
    {
        *("which", "what", "where", "find", "show", "list", "get", "do", "does", "any", "all"),
        *("the", "a", "an", "is", "are", "there", "unit", "integration", "regression"),
    }
)
_TEST_HEADS = frozenset({"test", "tests"})
_AFTER_TEST_HEAD = frozenset(
    {
        *("that", "of", "for", "which", "where", "about", "on", "to", "with"),
        *("check", "checks", "checking", "cover", "covers", "covering", "exercise", "exercises"),
    }
)
_WORD = re.compile(r"[a-z0-9_]+")


def leads_with_tests(text: str) -> bool:
    """Whether a question's head asks for tests: its first word that is not a question word,
    an article or the like is ``test`` or ``tests``, followed by nothing or by a word saying
    what they do or are of ("that", "of", "for", "checks", "cover"...)."""
    words = _WORD.findall(text.lower())
    for i, word in enumerate(words):
        if word not in _HEAD_SKIPS:
            return word in _TEST_HEADS and (i + 1 == len(words) or words[i + 1] in _AFTER_TEST_HEAD)
    return False


def candidate_category(file: str, kind: str) -> str | None:
    """The category of a definition of ``kind`` in ``file`` (None: product code)."""
    category = path_category(file)
    if kind in PROSE_KINDS and category not in _OWN_CATEGORY:
        return kind
    return category
