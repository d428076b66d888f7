"""Code-aware ranking: re-score fused search candidates with signals a plain BM25 misses.

Input: candidates from the lexical and vector backends (their ranks), the
query as read once (greploom.core.query). Output: every candidate, re-scored and re-ordered. Nothing is
ever removed; signals only move candidates.

    base      = w_lex / (k + lexical_rank) + w_vec / (k + vector_rank)
                + w_lex / (k + symbol_rank) + WORDED_WEIGHT x w_lex / (k + worded_rank)
                (w from the query type: symbol-like queries lean lexical,
                questions balanced; symbol_rank is the rank in the lookup
                of the definitions the query names); for a question in words
                whose candidates carry both backends' normalized scores, the
                first two terms are their convex fusion instead
                (greploom.core.score_fusion) over w_vec x (k + 1): a candidate
                first with the vector search alone scores as under RRF
    x name    = 1 + NAME_BONUS * (share of query words in the name, qualname and path)
    x defn    = DEFINITION_BOOST when the query names this definition
                (its name, or a dotted suffix of its qualified name; smart
                case: a capital asks for that case), x EXACT_CASE_BOOST when
                spelled as written, case and all, x MODULE_NAME_FACTOR for a
                module named by its file's name, not its whole dotted name
    x place   = LOCATION_BOOST when a place the query names (``path:line``,
                a traceback frame, a file: greploom.core.locations) is in
                this definition; it also adds 1 / (k + location_rank), and
                such definitions lead the order, in the places' order
    x penalty = NON_PRODUCT_PENALTY for tests, examples, docs, vendored,
                generated, compatibility code and type stubs, and for doc and
                config sections (kinds ``doc``, ``config``), unless the query
                asks for it
    x decl    = DECLARATION_PENALTY for a type that declares a shape and holds
                no behaviour (a TypeScript interface or type alias) when a
                question in words does not ask about types: "how is a maximum
                length enforced" wants the check, not ``$ZodCheckMaxLengthDef``
    x module  = MODULE_QUESTION_FACTOR for a module answering a question in words
                that says none of its top-level names (greploom.core.naming.worded),
                points at no place in it and does not ask how the code is built; the
                same for a value bound at module level (a variable) whose name it
                does not say
    x old     = DEPRECATED_PENALTY for a definition its code marks deprecated (a
                ``@deprecated`` decorator or doc tag, an opening deprecation warning:
                greploom.core.deprecation) whose note names a successor among the
                candidates, which first takes the deprecated one's backend ranks where
                they are better (``dict`` is deprecated; use ``model_dump``); unless the
                query names it, points at it or asks about old code ("deprecated",
                "legacy", "v1", ...); never on top of another penalty
    x legacy  = LEGACY_PENALTY for a definition in a legacy tree (``v1/``, ``deprecated/``,
                ``v3/`` beside ``v4/``: greploom.core.legacy) that has a current namesake
                (among the candidates, or the ``namesakes`` the shell looked up), unless the
                query names its tree, whose namesakes elsewhere then take it instead; never
                on top of a non-product penalty (``compat/`` and ``legacy/`` paths have theirs);
                OLD_TREE_PENALTY for one without a current namesake, unless the query names
                its tree or asks about old code
    x file    = symbol queries: 1 + FILE_COHERENCE * (other candidates from the same file, at most 4);
                questions about how the code is built ("how does ... work", "overview"):
                the file's best definition and its module node gain FILE_LIFT x the
                evidence of the file's other candidates (greploom.core.file_evidence);
                other questions in words: a class that leads at least two of its members
                among the candidates gains CLASS_LIFT x their evidence
                (greploom.core.class_evidence)
+ calls   = questions in words: a candidate calling at least three other candidates (not
            itself demoted) gains CALL_LIFT x their evidence after the stages above
            (greploom.core.call_evidence): "prepares the entire request" wants the
            ``prepare`` that calls ``prepare_url``, ``prepare_body``, ``prepare_headers``
<> built   = questions in words: a thin private factory trades places and scores with
            the candidate below it that it constructs (greploom.core.factories):
            "how is a maximum length enforced" wants ``$ZodCheckMaxLength``, not the
            ``_maxLength`` that news one

then the definitions the query's places point at lead, in the places' order, and the
rest follow by score. No file is pushed down for the number of its results: per-file
saturation (past 3 results from one file, the rest of it below every other file's) cost
the quality harness NDCG@10 0.811 -> 0.806 and hit@2k 0.949 -> 0.938 (signals, mean over
11 code bases; after 2 / 5: 0.802 / 0.807; a score decay of 0.9 / 0.8 / 0.6 per result past
3: 0.809 / 0.807 / 0.807), lowest where one file holds most of the answers (zod's
``schemas.ts``, click's ``core.py``): the target is the fourth good match in its file.

Laws (tests/properties/test_ranking.py): the output is a permutation of the
input; a definition boost never lowers the defining node's score; a better
backend rank never lowers a score; penalties never remove a result; the
order does not depend on the order candidates are given in; the places
lead and the rest are in score order; a definition is
named by its name and qualified name, as written or in lower case; the name
lookup keeps exactly the named definitions, whole qualified names first.
File evidence, class evidence, call evidence, factories and legacy copies:
tests/properties/test_file_evidence.py, tests/properties/test_class_evidence.py,
tests/properties/test_call_evidence.py, tests/properties/test_factories.py and
tests/properties/test_legacy.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from greploom.core.call_evidence import call_lifts
from greploom.core.candidate import PENALTY, UNPLACED, Candidate, Ranked
from greploom.core.class_evidence import Scored, class_lifts
from greploom.core.code_categories import NON_PRODUCT_PENALTY, asked_for, candidate_category, leads_with_tests
from greploom.core.factories import factories_yield
from greploom.core.file_evidence import MODULE_KIND, Member, asks_about_architecture, file_lifts
from greploom.core.fusion import RRF_K
from greploom.core.lexical import identifier_parts, identifier_tokens

# Which definitions a symbol names is greploom.core.naming's to say, and how a query reads
# greploom.core.query's; their functions stay importable from here.
from greploom.core.naming import folds_case, matches_symbol, order_named, says_name, spelled  # noqa: F401

# The old code's stage (deprecation marks, legacy copies: greploom.core.old_code); its names
# stay importable from here.
from greploom.core.old_code import (  # noqa: F401
    DEPRECATED_PENALTY,
    LEGACY_LOOKUPS,
    LEGACY_PENALTY,
    OLD_TREE_PENALTY,
    asked_for_old,
    current_over_legacy,
    legacy_suspects,
    successors_placed,
)
from greploom.core.query import Query, QueryKind, as_query, named_symbols, query_kind  # noqa: F401
from greploom.core.score_fusion import convex_score

NAME_BONUS = 0.5  # a query word found in the name, qualname or path
DEFINITION_BOOST = 2.0  # the query names this definition outright
# ... spelled as the query writes it, case and all: ``flow`` names function flow, and
# constant FLOW, interface Flow only by smart case (mobx: flow came 4th behind them).
EXACT_CASE_BOOST = 1.5
# ... a module, named by its file's name, not its whole dotted name: ``autorun`` wants the
# function autorun.ts defines before the module (mobx: the module came first).
MODULE_NAME_FACTOR = 0.75
# The query points at this definition (`adapters.py:412`). Places lead the order
# anyway (rank_candidates); the boost, above every other signal together
# (2 x 1.5 x 1.2), makes their scores stand out too, so adaptive context keeps them.
LOCATION_BOOST = 10.0
# Types that only declare a shape. In zod's core 270 of 997 definitions are interfaces
# and type aliases (`...Def`, `...Internals`, `...Params`), and they filled the top five
# of questions about behaviour; the non-product penalty of .pyi stubs is the same reasoning.
DECLARATION_PENALTY = 0.6
DECLARATION_KINDS = frozenset({"interface", "type"})
_ASKS_FOR_TYPES = frozenset(
    {
        "type",
        "types",
        "typed",
        "typing",
        "interface",
        "interfaces",
        "shape",
        "field",
        "fields",
        "declare",
        "declared",
        "declaration",
        "declarations",
        "definition",
        "generic",
        "generics",
        "infer",
        "inferred",
    }
)
# A question saying the words of a module-level name (greploom.core.naming.worded): its module
# joins the candidates as a list of its own, weighed as the name lookup is. Measured on the
# quality harness (signals, NDCG@10): module-level names 0.585 -> 0.713, architecture 0.679
# -> 0.697, mean over the 11 0.786 -> 0.790; legacy 0.742 -> 0.712, tests 0.747 -> 0.741,
# the base 8 0.797 -> 0.795, javascript 0.876 -> 0.871 (a module outranking its own
# functions: express's utils for "respond depending on the content types the client
# accepts"). At any weight from 0.3 to 0.75 the module comes after its file's functions and
# gains nothing: 0.787, module-level names 0.627.
WORDED_WEIGHT = 1.0
# A module answering a question in words that says none of its top-level names and does not
# ask how the code is built. A module's vector and words are the union of its definitions'
# (their names, its docstring, its top-level statements), so it matches many questions
# moderately and came first for 13 of the harness's questions, right for one of them:
# express's utils for "which of these content types does the client prefer", commander's
# suggestSimilar.js above the function suggestSimilar it exists for. Measured on the quality
# harness (signals, NDCG@10, mean over 11): 0.8247 -> 0.8271 at 0.85 (0.9: 0.8264, 0.8:
# 0.8254, module-level names 0.760 -> 0.712 there; on worded modules too: 0.8254).
#
# A value bound at module level (a variable: TypeScript's `export const boolean = /true|false/i`,
# zod's NUMBER_FORMAT_RANGES) likewise, unless the question says its name's words: a question
# asks how code behaves more often than what a constant holds. Measured (signals, NDCG@10):
# 0.8306 -> 0.8316 at 0.85 or 0.7 ("run a user predicate and report a custom issue when it
# returns false" 0.62 -> 0.85: zod's regex `boolean` had come first).
MODULE_QUESTION_FACTOR = 0.85
VARIABLE_KIND = "variable"
# A question whose head asks for tests (greploom.core.code_categories.leads_with_tests: "tests
# that the sandbox refuses unsafe attribute access") lifts test code; other questions saying
# "test" only let it in unpenalized. Measured (signals, NDCG@10): 0.8316 -> 0.8337, tests asked
# for 0.815 -> 0.914 (jinja2's TestSandbox 0.39 -> 1.00, test_split_template_path 0.63 ->
# 1.00, which its product function had passed); x1.3 / 2.0: 0.8319 / 0.8337; for every
# question saying "test": 0.8327 with a testing.py module as test code ("how does the test
# client run an ASGI app" 1.00 -> 0.33).
TESTS_ASKED_LIFT = 1.6
FILE_COHERENCE = 0.05  # per other candidate in the same file
MAX_COHERENCE_PEERS = 4

# (lexical weight, vector weight) by query type.
SYMBOL_WEIGHTS = (1.0, 0.3)  # `Session.send`, `parse_url`: names are exact
# "where is the retry backoff computed": balanced, as the issue asks. Leaning
# on the code-tuned model (0.7, 1.0) measured NDCG@10 0.792 -> 0.804 on the
# quality harness, higher on all six code bases; not taken, as the report says.
NATURAL_WEIGHTS = (1.0, 1.0)
# (lexical, vector) weights of the convex fusion of a question's normalized scores
# (greploom.core.score_fusion). Measured on the quality harness (signals, mean NDCG@10):
# vector weight 0.55 / 0.6 / 0.65 / 0.7: 0.800 / 0.804 / 0.803 / 0.803 (scaled as below);
# RRF 0.791. Scaled so that the vector's first alone scores 1 / (k + 1), as under RRF (rather
# than first in both lists 2 / (k + 1): 0.802, module-level names 0.680): the worded lookup's rank
# term keeps its weight.
CONVEX_WEIGHTS = (0.4, 0.6)


def backend_weights(kind: QueryKind) -> tuple[float, float]:
    """(lexical, vector) weights for RRF by query type."""
    return SYMBOL_WEIGHTS if kind is QueryKind.SYMBOL else NATURAL_WEIGHTS


def score_candidate(query: str | Query, candidate: Candidate, k: float = RRF_K) -> Ranked:
    """The score of one candidate before file-level signals (a query's text is read here)."""
    return _score(as_query(query), candidate, k)


def _score(query: Query, candidate: Candidate, k: float) -> Ranked:
    kind, words = query.kind, query.words
    w_lex, w_vec = backend_weights(kind)
    base = 0.0
    lexical_score, vector_score = candidate.lexical_score, candidate.vector_score
    if kind is QueryKind.NATURAL and lexical_score is not None and vector_score is not None:
        # On RRF's scale where the backend that answers questions best says the same: first
        # with the vector search alone, 1 / (k + 1), so the rank terms below weigh as under RRF.
        fused = convex_score(lexical_score, vector_score, CONVEX_WEIGHTS)
        base += fused / (CONVEX_WEIGHTS[1] * (k + 1))
    else:
        if candidate.lexical_rank > 0:
            base += w_lex / (k + candidate.lexical_rank)
        if candidate.vector_rank > 0:
            base += w_vec / (k + candidate.vector_rank)
    if candidate.symbol_rank > 0:
        base += w_lex / (k + candidate.symbol_rank)
    if candidate.location_rank > 0:
        base += 1.0 / (k + candidate.location_rank)
    if candidate.worded_rank > 0:
        base += WORDED_WEIGHT * w_lex / (k + candidate.worded_rank)
    signals: list[tuple[str, float]] = [("base", base)]
    score = base
    if words and kind is QueryKind.SYMBOL:
        haystack = (
            frozenset(identifier_parts(candidate.qualname))
            | frozenset(identifier_tokens(candidate.qualname))
            | frozenset(identifier_tokens(candidate.file.replace("/", " ")))
        )
        share = len(words & haystack) / len(words)
        factor = 1.0 + NAME_BONUS * share
        score *= factor
        signals.append(("name", factor))
    named_by = (
        [s for s in query.symbols if matches_symbol(s, candidate.name, candidate.qualname)]
        if kind is QueryKind.SYMBOL
        else []
    )
    if kind is QueryKind.SYMBOL and (candidate.binds or named_by):
        boost = DEFINITION_BOOST
        if any(spelled(s, candidate.name, candidate.qualname) for s in named_by):
            boost *= EXACT_CASE_BOOST
        if candidate.kind == MODULE_KIND and not candidate.binds and candidate.qualname not in named_by:
            boost *= MODULE_NAME_FACTOR
        score *= boost
        signals.append(("definition", boost))
    if candidate.location_rank > 0:
        score *= LOCATION_BOOST
        signals.append(("location", LOCATION_BOOST))
    category = candidate_category(candidate.file, candidate.kind)
    # A place the query points at asks for its code, test or not.
    non_product = category is not None and candidate.location_rank == 0 and not asked_for(category, words)
    if non_product:
        score *= NON_PRODUCT_PENALTY
        signals.append((f"{PENALTY}{category}", NON_PRODUCT_PENALTY))
    if candidate.replaced_by and not non_product and not asked_for_old(query, candidate):
        score *= DEPRECATED_PENALTY
        signals.append((f"{PENALTY}deprecated", DEPRECATED_PENALTY))
    for signal, factor in _priors(query, candidate, category):
        score *= factor
        signals.append((signal, factor))
    return Ranked(candidate, score, tuple(signals))


def _priors(query: Query, candidate: Candidate, category: str | None) -> list[tuple[str, float]]:
    """What a question in words says of test code when its head asks for tests, and of a
    candidate's kind (a declaration, a module, a value bound at module level: none a
    demotion, the candidate is what it is about no less)."""
    if query.kind is not QueryKind.NATURAL or candidate.location_rank > 0:
        return []
    asked = category == "test" and leads_with_tests(query.text)
    return [*([("tests asked", TESTS_ASKED_LIFT)] if asked else []), *_kind_prior(query, candidate)]


def _kind_prior(query: Query, candidate: Candidate) -> list[tuple[str, float]]:
    if candidate.kind in DECLARATION_KINDS and not (query.words & _ASKS_FOR_TYPES):
        return [("declaration", DECLARATION_PENALTY)]
    if asks_about_architecture(query.words):
        return []
    if candidate.kind == MODULE_KIND and candidate.worded_rank == 0:
        return [("module", MODULE_QUESTION_FACTOR)]
    if candidate.kind == VARIABLE_KIND and not says_name(query.words, candidate.name):
        return [("value", MODULE_QUESTION_FACTOR)]
    return []


def rank_candidates(
    query: str | Query,
    candidates: Iterable[Candidate],
    *,
    k: float = RRF_K,
    namesakes: Iterable[tuple[str, str]] = (),
    calls: Mapping[str, Sequence[str]] | None = None,
    builds: Mapping[str, frozenset[str]] | None = None,
) -> tuple[Ranked, ...]:
    """Every candidate, re-scored with all signals, best first (the places the query points at
    leading).

    ``query``: as :func:`greploom.core.query.read_query` read it, or its text, read here.
    ``namesakes``: ``(name, file)`` of the code base's definitions that share a
    name with a candidate in a legacy-looking path (:func:`legacy_suspects`), as
    the shell looked them up; without them only the candidates are compared.
    ``calls``: the candidates' callees among the candidates (``IndexStore.calls_among``); a
    question in words lifts a candidate calling several (greploom.core.call_evidence).
    ``builds``: what the candidates that are thin private factories build
    (greploom.core.factories.built_by); for a question in words each trades places with it.
    """
    read = as_query(query)
    unique = successors_placed({c.key: c for c in sorted(candidates, key=lambda c: c.key)}, read)
    scored = current_over_legacy(read, [_score(read, c, k) for c in unique.values()], namesakes)
    evidence = "file"
    if read.kind is QueryKind.SYMBOL:
        factors = _file_coherence(scored)
    elif asks_about_architecture(read.words):
        factors = _file_evidence(scored)
    else:
        factors, evidence = _class_evidence(scored), "class"
    coherent = _applied(scored, factors, evidence)
    if calls and read.kind is QueryKind.NATURAL:
        coherent = _applied(coherent, _call_evidence(coherent, calls), "calls")
    if builds and read.kind is QueryKind.NATURAL:
        coherent.sort(key=lambda r: (-r.score, r.candidate.key))
        coherent = factories_yield(coherent, builds)
    # The definitions the query's places point at lead, in the places' order (a
    # traceback's innermost frame first); the rest follow by score.
    coherent.sort(key=lambda r: (r.candidate.location_rank or UNPLACED, -r.score, r.candidate.key))
    return tuple(coherent)


def _file_coherence(scored: Sequence[Ranked]) -> dict[str, float]:
    """For symbol queries: 1 + FILE_COHERENCE per other candidate of the same file (at most 4), by key."""
    per_file_count: dict[str, int] = {}
    for r in scored:
        per_file_count[r.candidate.file] = per_file_count.get(r.candidate.file, 0) + 1
    return {
        r.candidate.key: 1.0 + FILE_COHERENCE * min(per_file_count[r.candidate.file] - 1, MAX_COHERENCE_PEERS)
        for r in scored
    }


def _applied(ranked: Sequence[Ranked], factors: Mapping[str, float], signal: str) -> list[Ranked]:
    """The candidates with their factors (by key) applied, each named ``signal``."""
    return [
        Ranked(r.candidate, r.score * f, (*r.signals, (signal, f)))
        for r, f in ((r, factors[r.candidate.key]) for r in ranked)
    ]


def _as_factors(ranked: Sequence[Ranked], lifts: Mapping[str, float]) -> dict[str, float]:
    """Additive lifts as factors of each candidate's score, by key: a candidate scoring 0 (no
    backend found it) gains nothing, as with every factor."""
    return {
        r.candidate.key: (r.score + lifts[r.candidate.key]) / r.score if r.score > 0 else 1.0 for r in ranked
    }


def _scored(ranked: Sequence[Ranked]) -> list[Scored]:
    return [Scored(c.key, c.qualname, c.file, c.kind, r.score) for r, c in ((r, r.candidate) for r in ranked)]


def _class_evidence(scored: Sequence[Ranked]) -> dict[str, float]:
    """Each candidate's factor from its members' evidence (greploom.core.class_evidence), by key."""
    return _as_factors(scored, class_lifts(_scored(scored)))


def _file_evidence(scored: Sequence[Ranked]) -> dict[str, float]:
    """Each candidate's factor from its file's evidence (greploom.core.file_evidence), by key."""
    members = [
        Member(r.candidate.key, r.candidate.file, r.score, r.candidate.kind == MODULE_KIND) for r in scored
    ]
    return _as_factors(scored, file_lifts(members))


def _call_evidence(ranked: Sequence[Ranked], calls: Mapping[str, Sequence[str]]) -> dict[str, float]:
    """Each candidate's factor from the candidates it calls (greploom.core.call_evidence), by key,
    read from their scores after file and class evidence; a demoted candidate gains nothing."""
    demoted = {r.candidate.key for r in ranked if r.demoted}
    return _as_factors(ranked, call_lifts(_scored(ranked), calls, demoted=demoted))
