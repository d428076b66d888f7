"""Hand-written queries of the kinds issue 16 names, on the code bases added for it.

Written by reading each code base at its pinned version (corpora.py: starlette
0.46.2 and jinja2 3.1.6 from their sdists, tests included; pydantic 2.11.7,
which keeps its 1.x API in ``pydantic/v1/`` and old 2.x API in
``pydantic/deprecated/``), phrased as an agent asks while working in the code,
without copying docstrings. Kinds:

- ``architecture``: how a part works, what the lifecycle of something is,
  how something propagates; answered by where the code lives: the file(s)
  or the definition(s) that implement it.
- ``legacy``: a question whose answer is the current definition in a code base
  that keeps legacy copies beside it (the ``v1/`` and ``deprecated/`` trees,
  often with the same names); the current definition is the answer. A few
  name the legacy tree ("in pydantic v1 ...", "the deprecated ..."): their
  answer is the legacy copy.
- ``tests``: a question that does not ask about tests, in a code base whose
  tests use the same words: the product definition is the answer.
  ``tests-asked``: a question that asks for tests: the test is the answer.
- ``module-name``: a question or a symbol naming a module-level constant,
  registry or shared object (``environ = Environ()``, ``CONVERTOR_TYPES``):
  the answer is the assignment (its module, or the assignment's lines).

Each entry: (kind, query, answers). An answer is a qualified name (a
definition inside it counts for it, as for nl_queries.py), ``file:PATH`` (any
result in that file counts: a file-labelled answer), or ``name:PATH:NAME`` (the
module-level assignment of NAME in PATH: a result counts when it lies in that
file and its lines contain the assignment's, the module, or lie within them,
an assignment node). make_queries.py resolves ``name:`` answers to their
lines and checks that every answer exists in the index.
"""

from __future__ import annotations

CASES: dict[str, list[tuple[str, str, list[str]]]] = {
    "starlette": [
        # how a part works
        (
            "architecture",
            "how does exception propagation through the middleware stack work, from a route handler "
            "to the 500 error response",
            [
                "file:starlette/_exception_handler.py",
                "file:starlette/middleware/exceptions.py",
                "file:starlette/middleware/errors.py",
            ],
        ),
        (
            "architecture",
            "what is the lifecycle of the application lifespan: startup, shutdown and the state it yields",
            ["starlette.routing.Router.lifespan", "starlette.routing._DefaultLifespan"],
        ),
        (
            "architecture",
            "how is an incoming request dispatched by the router to the endpoint of the matching route",
            [
                "starlette.routing.Router.app",
                "starlette.routing.Route.handle",
                "starlette.routing.request_response",
            ],
        ),
        (
            "architecture",
            "how is the application's middleware stack assembled and in which order do the middleware run",
            ["starlette.applications.Starlette.build_middleware_stack", "starlette.middleware.Middleware"],
        ),
        (
            "architecture",
            "how does BaseHTTPMiddleware pass the request on to the app and stream its response back "
            "to dispatch",
            ["file:starlette/middleware/base.py"],
        ),
        (
            "architecture",
            "how does the test client run an ASGI app in the same process without a server",
            ["file:starlette/testclient.py"],
        ),
        (
            "architecture",
            "how are multipart form uploads parsed into fields and uploaded files",
            ["starlette.formparsers.MultiPartParser", "starlette.requests.Request._get_form"],
        ),
        (
            "architecture",
            "how do path parameters in route patterns get compiled to regular expressions and converted "
            "to python values",
            ["starlette.routing.compile_path", "file:starlette/convertors.py"],
        ),
        (
            "architecture",
            "how does the session middleware load the signed cookie into the request and write it back "
            "on the response",
            ["starlette.middleware.sessions.SessionMiddleware"],
        ),
        (
            "architecture",
            "how do sync endpoints and background tasks run without blocking the event loop",
            [
                "starlette.concurrency.run_in_threadpool",
                "starlette.routing.request_response",
                "starlette.background.BackgroundTask",
            ],
        ),
        (
            "architecture",
            "explain how CORS handling works for preflight and simple requests",
            ["file:starlette/middleware/cors.py"],
        ),
        # product over tests: the tests use the same words
        (
            "tests",
            "reject requests whose Host header is not one of the allowed hosts",
            ["starlette.middleware.trustedhost.TrustedHostMiddleware"],
        ),
        (
            "tests",
            "skip gzip compression for small response bodies",
            ["starlette.middleware.gzip.IdentityResponder.send_with_compression"],
        ),
        (
            "tests",
            "keep clients from reading files outside the static directory, symlinks included",
            ["starlette.staticfiles.StaticFiles.lookup_path"],
        ),
        (
            "tests",
            "answer 304 not modified when the etag or the modification date matches",
            ["starlette.staticfiles.StaticFiles.is_not_modified"],
        ),
        (
            "tests",
            "limit how many files and fields a multipart form may contain",
            ["starlette.formparsers.MultiPartParser.on_headers_finished"],
        ),
        (
            "tests",
            "echo the request's origin instead of a wildcard in CORS responses when cookies are sent",
            [
                "starlette.middleware.cors.CORSMiddleware.send",
                "starlette.middleware.cors.CORSMiddleware.allow_explicit_origin",
            ],
        ),
        (
            "tests",
            "run several background tasks in order after the response is sent",
            ["starlette.background.BackgroundTasks"],
        ),
        (
            "tests",
            "refuse to change an environment variable once the configuration has read it",
            ["starlette.config.Environ.__setitem__", "starlette.config.Environ.__delitem__"],
        ),
        (
            "tests",
            "fail when the server does not support state in the lifespan scope",
            ["starlette.routing.Router.lifespan"],
        ),
        (
            "tests",
            "redirect plain http requests to https",
            ["starlette.middleware.httpsredirect.HTTPSRedirectMiddleware"],
        ),
        (
            "tests",
            "a signed cookie session that expires after a maximum age",
            ["starlette.middleware.sessions.SessionMiddleware"],
        ),
        # questions that ask for tests
        (
            "tests-asked",
            "which test checks that static files cannot escape their directory through symlinks",
            [
                "tests.test_staticfiles.test_staticfiles_disallows_path_traversal_with_symlinks",
                "tests.test_staticfiles.test_staticfiles_avoids_path_traversal",
            ],
        ),
        (
            "tests-asked",
            "tests for gzip being skipped on small responses",
            ["tests.middleware.test_gzip.test_gzip_ignored_for_small_responses"],
        ),
        (
            "tests-asked",
            "test that a failing background task stops the ones after it from running",
            ["tests.test_background.test_multi_tasks_failure_avoids_next_execution"],
        ),
        (
            "tests-asked",
            "pytest fixture that makes a test client for each async backend",
            ["tests.conftest.test_client_factory"],
        ),
        (
            "tests-asked",
            "test of a CORS preflight request that is not allowed",
            ["tests.middleware.test_cors.test_cors_disallowed_preflight"],
        ),
        # module-level names
        ("module-name", "environ", ["name:starlette/config.py:environ"]),
        (
            "module-name",
            "the shared environment mapping that Config reads by default",
            ["name:starlette/config.py:environ"],
        ),
        ("module-name", "CONVERTOR_TYPES", ["name:starlette/convertors.py:CONVERTOR_TYPES"]),
        (
            "module-name",
            "registry of path parameter convertors by name: str, path, int, float, uuid",
            ["name:starlette/convertors.py:CONVERTOR_TYPES"],
        ),
        ("module-name", "HTTP_418_IM_A_TEAPOT", ["name:starlette/status.py:HTTP_418_IM_A_TEAPOT"]),
        (
            "module-name",
            "status code constant for closing a websocket on a policy violation",
            ["name:starlette/status.py:WS_1008_POLICY_VIOLATION"],
        ),
        (
            "module-name",
            "content types the gzip middleware never compresses",
            ["name:starlette/middleware/gzip.py:DEFAULT_EXCLUDED_CONTENT_TYPES"],
        ),
        (
            "module-name",
            "SERVER_PUSH_HEADERS_TO_COPY",
            ["name:starlette/requests.py:SERVER_PUSH_HEADERS_TO_COPY"],
        ),
        (
            "module-name",
            "the list of http methods CORS allows when every method is permitted",
            ["name:starlette/middleware/cors.py:ALL_METHODS"],
        ),
    ],
    "jinja2": [
        (
            "architecture",
            "how does a template go from source text through the lexer and parser to compiled python code",
            [
                "src.jinja2.environment.Environment.compile",
                "src.jinja2.compiler.generate",
                "src.jinja2.parser.Parser.parse",
            ],
        ),
        (
            "architecture",
            "how does template inheritance with extends and overridden blocks work at render time",
            [
                "src.jinja2.compiler.CodeGenerator.visit_Extends",
                "src.jinja2.compiler.CodeGenerator.visit_Block",
                "src.jinja2.runtime.BlockReference",
            ],
        ),
        (
            "architecture",
            "how does the lexer turn template source into a stream of tokens",
            [
                "src.jinja2.lexer.Lexer.tokeniter",
                "src.jinja2.lexer.Lexer.tokenize",
                "src.jinja2.lexer.Lexer.wrap",
            ],
        ),
        (
            "architecture",
            "what is the lifecycle of loading a template: the loader, the template cache, the bytecode "
            "cache and auto reload",
            [
                "src.jinja2.environment.Environment._load_template",
                "src.jinja2.loaders.BaseLoader.load",
                "src.jinja2.bccache.BytecodeCache.get_bucket",
            ],
        ),
        (
            "architecture",
            "how does the sandbox intercept attribute access and calls made by templates",
            [
                "src.jinja2.sandbox.SandboxedEnvironment.getattr",
                "src.jinja2.sandbox.SandboxedEnvironment.call",
                "src.jinja2.sandbox.SandboxedEnvironment.is_safe_attribute",
            ],
        ),
        (
            "architecture",
            "how are undefined variables represented, and when does using one raise an error",
            ["src.jinja2.runtime.Undefined", "src.jinja2.runtime.StrictUndefined"],
        ),
        (
            "architecture",
            "how do extensions hook custom tags into the parser",
            ["src.jinja2.ext.Extension", "src.jinja2.parser.Parser.parse_statement"],
        ),
        (
            "architecture",
            "how does rendering work in async mode",
            [
                "src.jinja2.environment.Template.render_async",
                "src.jinja2.environment.Template.generate_async",
                "file:src/jinja2/async_utils.py",
            ],
        ),
        (
            "architecture",
            "how is an exception raised inside a template rewritten so the traceback shows template "
            "line numbers",
            ["file:src/jinja2/debug.py"],
        ),
        (
            "architecture",
            "explain how names are tracked per scope during compilation: loads, stores and parameters",
            ["file:src/jinja2/idtracking.py"],
        ),
        # product over tests
        (
            "tests",
            "truncate text to a length without cutting a word in half, adding an ellipsis",
            ["src.jinja2.filters.do_truncate"],
        ),
        (
            "tests",
            "sort a sequence by an attribute, ignoring case unless told otherwise",
            ["src.jinja2.filters.do_sort"],
        ),
        (
            "tests",
            "group a list of objects by a common attribute",
            ["src.jinja2.filters.sync_do_groupby", "src.jinja2.filters.do_groupby"],
        ),
        (
            "tests",
            "format a number of bytes as a human readable file size",
            ["src.jinja2.filters.do_filesizeformat"],
        ),
        (
            "tests",
            "check in a template whether a number is divisible by another",
            ["src.jinja2.tests.test_divisibleby"],
        ),
        (
            "tests",
            "reject template names that climb out of the search path with ..",
            ["src.jinja2.loaders.split_template_path"],
        ),
        (
            "tests",
            "keep compiled templates in a cache directory on disk",
            ["src.jinja2.bccache.FileSystemBytecodeCache"],
        ),
        (
            "tests",
            "stop templates in the sandbox from reaching internal attributes of functions and frames",
            ["src.jinja2.sandbox.is_internal_attribute"],
        ),
        (
            "tests",
            "render the parent block's content when a child block calls super",
            ["src.jinja2.runtime.BlockReference.super"],
        ),
        ("tests", "wrap long lines of text at a given width", ["src.jinja2.filters.do_wordwrap"]),
        # questions that ask for tests
        (
            "tests-asked",
            "tests that the sandbox refuses unsafe attribute access",
            ["tests.test_security.TestSandbox"],
        ),
        (
            "tests-asked",
            "which tests cover the truncate filter",
            [
                "tests.test_filters.TestFilter.test_truncate",
                "tests.test_filters.TestFilter.test_truncate_very_short",
                "tests.test_filters.TestFilter.test_truncate_end_length",
            ],
        ),
        (
            "tests-asked",
            "test of calling super inside a scoped block",
            ["tests.test_inheritance.TestInheritance.test_super_in_scoped_block"],
        ),
        (
            "tests-asked",
            "tests of the memcached bytecode cache",
            ["tests.test_bytecode_cache.TestMemcachedBytecodeCache"],
        ),
        (
            "tests-asked",
            "test that split_template_path rejects paths that go up a directory",
            ["tests.test_loader.TestLoaders.test_split_template_path"],
        ),
        # module-level names
        ("module-name", "DEFAULT_NAMESPACE", ["name:src/jinja2/defaults.py:DEFAULT_NAMESPACE"]),
        (
            "module-name",
            "the globals every template gets by default, such as range, lipsum, cycler and namespace",
            ["name:src/jinja2/defaults.py:DEFAULT_NAMESPACE"],
        ),
        (
            "module-name",
            "default policies such as the truncate leeway and the rel attribute urlize adds",
            ["name:src/jinja2/defaults.py:DEFAULT_POLICIES"],
        ),
        ("module-name", "FILTERS", ["name:src/jinja2/filters.py:FILTERS"]),
        (
            "module-name",
            "the mapping of template test names like divisibleby, defined and odd to their functions",
            ["name:src/jinja2/tests.py:TESTS"],
        ),
        ("module-name", "TOKEN_BLOCK_BEGIN", ["name:src/jinja2/lexer.py:TOKEN_BLOCK_BEGIN"]),
        (
            "module-name",
            "the largest range a sandboxed template may create",
            ["name:src/jinja2/sandbox.py:MAX_RANGE"],
        ),
        (
            "module-name",
            "cache of lexers shared between environments with the same settings",
            ["name:src/jinja2/lexer.py:_lexer_cache"],
        ),
        (
            "module-name",
            "version number of the bytecode cache format",
            ["name:src/jinja2/bccache.py:bc_version"],
        ),
    ],
    "pydantic": [
        # current over legacy: the v1/ and deprecated/ trees hold older copies
        (
            "legacy",
            "validate the arguments passed to a function against its type hints",
            ["pydantic.validate_call_decorator.validate_call"],
        ),
        (
            "legacy",
            "decorator to check one field of a model with a custom function",
            ["pydantic.functional_validators.field_validator"],
        ),
        (
            "legacy",
            "run a validator over the whole model before or after the fields are validated",
            ["pydantic.functional_validators.model_validator"],
        ),
        (
            "legacy",
            "model configuration options such as forbidding extra fields or freezing instances",
            ["pydantic.config.ConfigDict"],
        ),
        (
            "legacy",
            "create a model class at runtime from field definitions",
            ["pydantic.main.create_model"],
        ),
        ("legacy", "create_model", ["pydantic.main.create_model"]),
        ("legacy", "an email address string type", ["pydantic.networks.EmailStr"]),
        ("legacy", "EmailStr", ["pydantic.networks.EmailStr"]),
        (
            "legacy",
            "constrained string type with length limits and a regex pattern",
            ["pydantic.types.constr"],
        ),
        ("legacy", "a string type that hides its value when printed or logged", ["pydantic.types.SecretStr"]),
        (
            "legacy",
            "declare a field with a default value, an alias and numeric constraints",
            ["pydantic.fields.Field"],
        ),
        ("legacy", "Field", ["pydantic.fields.Field"]),
        ("legacy", "a private attribute on a model that is not validated", ["pydantic.fields.PrivateAttr"]),
        ("legacy", "a stdlib-style dataclass whose fields are validated", ["pydantic.dataclasses.dataclass"]),
        (
            "legacy",
            "validate a python object against an arbitrary type without defining a model",
            ["pydantic.type_adapter.TypeAdapter"],
        ),
        (
            "legacy",
            "produce the json schema of a model",
            ["pydantic.main.BaseModel.model_json_schema", "pydantic.json_schema.model_json_schema"],
        ),
        (
            "legacy",
            "turn a model instance into a dict of its fields, with include and exclude",
            ["pydantic.main.BaseModel.model_dump"],
        ),
        ("legacy", "serialize a model to json text", ["pydantic.main.BaseModel.model_dump_json"]),
        (
            "legacy",
            "copy a model instance while updating some of its fields",
            ["pydantic.main.BaseModel.model_copy"],
        ),
        (
            "legacy",
            "resolve the forward references of a model once the referenced types exist",
            ["pydantic.main.BaseModel.model_rebuild"],
        ),
        ("legacy", "deep_update", ["pydantic._internal._utils.deep_update"]),
        # the query names the legacy tree: the legacy copy is the answer
        (
            "legacy",
            "the pydantic v1 validate_arguments decorator",
            ["pydantic.v1.decorator.validate_arguments"],
        ),
        (
            "legacy",
            "the deprecated root_validator decorator",
            ["pydantic.deprecated.class_validators.root_validator"],
        ),
        ("legacy", "GenericModel in pydantic v1", ["pydantic.v1.generics.GenericModel"]),
        # how a part works
        (
            "architecture",
            "how does a model class get its fields collected and its validator built when the class "
            "is defined",
            [
                "pydantic._internal._model_construction.ModelMetaclass",
                "pydantic._internal._model_construction.complete_model_class",
                "pydantic._internal._fields.collect_model_fields",
            ],
        ),
        (
            "architecture",
            "how does validate_call wrap a function so that its arguments are validated on every call",
            [
                "pydantic._internal._validate_call.ValidateCallWrapper",
                "pydantic.validate_call_decorator.validate_call",
            ],
        ),
        (
            "architecture",
            "how is the json schema of a model generated, with references to the models it uses",
            ["pydantic.json_schema.GenerateJsonSchema", "pydantic.main.BaseModel.model_json_schema"],
        ),
        # module-level names (v1/ has its own VERSION and COLORS_BY_NAME)
        ("module-name", "VERSION", ["name:pydantic/version.py:VERSION"]),
        (
            "module-name",
            "the table of names that moved to another module in pydantic 2",
            ["name:pydantic/_migration.py:MOVED_IN_V2"],
        ),
        (
            "module-name",
            "names removed in v2 that raise an error when imported",
            ["name:pydantic/_migration.py:REMOVED_IN_V2"],
        ),
        ("module-name", "DEFAULT_REF_TEMPLATE", ["name:pydantic/json_schema.py:DEFAULT_REF_TEMPLATE"]),
        (
            "module-name",
            "the longest email address the email validator accepts",
            ["name:pydantic/networks.py:MAX_EMAIL_LENGTH"],
        ),
        (
            "module-name",
            "colour names mapped to their rgb values",
            ["name:pydantic/color.py:COLORS_BY_NAME"],
        ),
        (
            "module-name",
            "config keys that were renamed between v1 and v2",
            ["name:pydantic/_internal/_config.py:V2_RENAMED_KEYS"],
        ),
    ],
}
