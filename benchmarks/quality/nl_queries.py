"""Hand-written natural-language queries with their ground truth (qualified names).

Written by reading each code base at the pinned version: a question of the
kind an agent asks while working in that code, phrased without copying the
target's docstring, and the definition(s) that answer it. A result counts
when its qualified name equals a target. make_queries.py merges these with
the generated symbol and docstring queries into queries/<corpus>.json.
"""

from __future__ import annotations

NL: dict[str, list[tuple[str, list[str]]]] = {
    "requests": [
        ("how are cookies from a response stored in the jar", ["cookies.extract_cookies_to_jar"]),
        ("where are redirects followed for a session", ["sessions.SessionRedirectMixin.resolve_redirects"]),
        (
            "when is the authorization header dropped on redirect",
            ["sessions.SessionRedirectMixin.should_strip_auth", "sessions.SessionRedirectMixin.rebuild_auth"],
        ),
        ("decide whether a host should skip the proxy", ["utils.should_bypass_proxies"]),
        ("read credentials from the netrc file", ["utils.get_netrc_auth"]),
        ("which transport adapter handles a given url", ["sessions.Session.get_adapter"]),
        ("raise an error for 4xx and 5xx responses", ["models.Response.raise_for_status"]),
        ("stream the body of a response in chunks", ["models.Response.iter_content"]),
        (
            "compute the content length of a request body",
            ["models.PreparedRequest.prepare_content_length", "utils.super_len"],
        ),
        ("detect the charset of a response from its headers", ["utils.get_encoding_from_headers"]),
    ],
    "click": [
        ("ask the user a yes or no question", ["termui.confirm"]),
        ("show a progress bar while iterating", ["termui.progressbar"]),
        ("open the user's text editor to edit a message", ["termui.edit"]),
        ("color terminal output with ANSI codes", ["termui.style", "termui.secho"]),
        ("where does the config directory of an application live", ["utils.get_app_dir"]),
        ("tab completion for bash", ["shell_completion.BashComplete", "shell_completion.shell_complete"]),
        ("read a single key press from the terminal", ["termui.getchar"]),
        ("restrict an integer option to a range of values", ["types.IntRange"]),
        ("print text through a pager like less", ["termui.echo_via_pager"]),
        ("exit the program with a status code from a command", ["core.Context.exit"]),
    ],
    "flask": [
        (
            "load configuration values from environment variables with a prefix",
            ["config.Config.from_prefixed_env"],
        ),
        ("build a url for an endpoint", ["app.Flask.url_for"]),
        ("turn a view's return value into a response object", ["app.Flask.make_response"]),
        ("store a one-time message for the next request", ["helpers.flash"]),
        ("serve a file to the client as a download", ["helpers.send_file"]),
        (
            "how is the session cookie signed and saved",
            [
                "sessions.SecureCookieSessionInterface.save_session",
                "sessions.SecureCookieSessionInterface.get_signing_serializer",
            ],
        ),
        (
            "find the application object when running the flask command",
            ["cli.find_best_app", "cli.locate_app"],
        ),
        ("handle an exception that has no registered error handler", ["app.Flask.handle_exception"]),
        ("keep the request context alive while streaming a response", ["helpers.stream_with_context"]),
        ("load config from a python file", ["config.Config.from_pyfile"]),
    ],
    "attrs": [
        ("convert an instance to a dictionary", ["_funcs.asdict"]),
        ("make a copy of an instance with some fields changed", ["_funcs.evolve"]),
        ("resolve string type annotations on a class", ["_funcs.resolve_types"]),
        ("run all validators of an instance again", ["_make.validate"]),
        ("prevent attribute assignment on frozen classes", ["_make._frozen_setattrs"]),
        ("build a class with __slots__", ["_make._ClassBuilder._create_slots_class"]),
        ("get the list of attributes defined on a class", ["_make.fields", "_make.fields_dict"]),
        ("switch validators off globally", ["_config.set_run_validators"]),
        ("create a class dynamically from a dict of attributes", ["_make.make_class"]),
        ("check that a value is an instance of a type", ["validators.instance_of"]),
    ],
    "httpx": [
        (
            "follow redirects and compute the next url",
            ["_client.BaseClient._redirect_url", "_client.BaseClient._build_redirect_request"],
        ),
        ("change the http method when redirected", ["_client.BaseClient._redirect_method"]),
        ("decompress gzip encoded response bodies", ["_decoders.GZipDecoder"]),
        ("pick the transport for a url with proxies", ["_client.Client._transport_for_url"]),
        ("configure connection pool limits", ["_config.Limits"]),
        ("digest authentication challenge parsing", ["_auth.DigestAuth._parse_challenge"]),
        ("use credentials from netrc for basic auth", ["_auth.NetRCAuth"]),
        ("read proxy settings from the environment", ["_utils.get_environment_proxies"]),
        ("split decoded text into lines incrementally", ["_decoders.LineDecoder"]),
        ("set up an ssl context for verifying certificates", ["_config.create_ssl_context"]),
    ],
    "commander": [
        (
            "parse command line arguments and run the action",
            ["command.Command.parse", "command.Command.parseAsync"],
        ),
        ("register an option with flags and description", ["command.Command.option"]),
        ("add a subcommand to a program", ["command.Command.command", "command.Command.addCommand"]),
        ("show help after an error", ["command.Command.showHelpAfterError"]),
        ("suggest a similar command when the name is mistyped", ["suggestSimilar.suggestSimilar"]),
        ("where are unknown options reported", ["command.Command.unknownOption"]),
        ("check that required options were given", ["command.Command._checkForMissingMandatoryOptions"]),
        ("wrap long help text to the terminal width", ["help.Help.wrap"]),
        (
            "remember where an option value came from (default, env, cli)",
            ["command.Command.setOptionValueWithSource", "command.Command.getOptionValueSource"],
        ),
        ("run an executable subcommand in a separate process", ["command.Command._executeSubCommand"]),
        ("read option defaults from environment variables", ["command.Command._parseOptionsEnv"]),
        ("override process exit to throw instead", ["command.Command.exitOverride"]),
    ],
    # CommonJS: most answers are functions defined by assignment (`res.send = function send`,
    # `proto.handle = ...`, `exports.compileETag = ...`), named <module>.<owner>.<name>.
    "express": [
        (
            "send a response body and pick the content type from what was passed",
            ["response.res.send"],
        ),
        ("respond with an object serialized as json", ["response.res.json", "response.stringify"]),
        ("redirect the client to another url with a status code", ["response.res.redirect"]),
        (
            "stream a file from disk to the client",
            ["response.res.sendFile", "response.res.sendfile", "response.sendfile"],
        ),
        ("respond differently depending on the content types the client accepts", ["response.res.format"]),
        ("set a cookie on the response, optionally signed", ["response.res.cookie"]),
        (
            "read a request header, treating referer and referrer as the same",
            ["request.req.get", "request.req.header"],
        ),
        ("which of these content types does the client prefer", ["request.req.accepts"]),
        ("check whether the incoming request body is of a given mime type", ["request.req.is"]),
        (
            "mount middleware or a sub-application under a path prefix",
            ["application.app.use", "router.index.proto.use"],
        ),
        ("start an http server listening for the app", ["application.app.listen"]),
        ("render a view template with the app locals and the view cache", ["application.app.render"]),
        (
            "what happens when the trust proxy or etag setting is changed",
            ["application.app.set", "utils.compileTrust"],
        ),
        (
            "walk the middleware stack and call the next layer that matches the request",
            ["router.index.proto.handle"],
        ),
        (
            "run the callbacks registered for route parameters before the handler",
            ["router.index.proto.process_params"],
        ),
        (
            "create a route for a path and add it to the router stack",
            ["router.index.proto.route", "application.app.route"],
        ),
        (
            "match a request path against a layer and decode its url parameters",
            ["router.layer.Layer.match", "router.layer.decode_param"],
        ),
        (
            "dispatch a request to the handlers of a route for its http method",
            ["router.route.Route.dispatch"],
        ),
        (
            "find the template file for a view in the views directories",
            ["view.View.lookup", "view.View.resolve"],
        ),
        (
            "pick a weak or strong etag generator from the app setting",
            ["utils.compileETag", "utils.createETagGenerator"],
        ),
        (
            "choose how the query string is parsed: simple, extended or not at all",
            ["utils.compileQueryParser", "middleware.query.query"],
        ),
        ("create a new express application", ["express.createApplication"]),
    ],
    # TypeScript: schemas are consts built by `core.$constructor("$ZodX", (inst, def) => ...)`
    # beside an interface of the same name (one qualified name, <module>.$ZodX).
    "zod": [
        ("how is a maximum length enforced on strings and arrays", ["checks.$ZodCheckMaxLength"]),
        ("reject a string shorter than the minimum number of characters", ["checks.$ZodCheckMinLength"]),
        (
            "how does an object schema parse each key of its shape",
            ["schemas.$ZodObject", "schemas.handleObjectResult", "schemas.handleOptionalObjectResult"],
        ),
        ("pick the union member from the value of a tag field", ["schemas.$ZodDiscriminatedUnion"]),
        (
            "try each option of a union and keep the first one that succeeds",
            ["schemas.$ZodUnion", "schemas.handleUnionResults"],
        ),
        (
            "merge the results of both sides of an intersection",
            ["schemas.mergeValues", "schemas.handleIntersectionResults"],
        ),
        ("how are schema classes created and instanceof checked through traits", ["core.$constructor"]),
        ("let undefined through without running the wrapped schema", ["schemas.$ZodOptional"]),
        ("accept null as well as the inner type", ["schemas.$ZodNullable"]),
        (
            "fill in a fallback value when the input is undefined",
            ["schemas.$ZodDefault", "schemas.handleDefaultResult"],
        ),
        ("return a replacement value instead of failing when parsing has issues", ["schemas.$ZodCatch"]),
        (
            "run a user predicate and report a custom issue when it returns false",
            ["schemas.$ZodCustom", "schemas.handleRefineResult"],
        ),
        ("where are the attached checks run after a schema has parsed its input", ["schemas.$ZodType"]),
        (
            "check that a number is a multiple of a step without floating point errors",
            ["checks.$ZodCheckMultipleOf", "util.floatSafeRemainder"],
        ),
        ("reject integers outside the safe integer range", ["checks.$ZodCheckNumberFormat"]),
        (
            "test a string against a regular expression",
            ["checks.$ZodCheckRegex", "checks.$ZodCheckStringFormat"],
        ),
        ("transform the value in place as part of the checks, like trimming", ["checks.$ZodCheckOverwrite"]),
        ("validate a json web token and its algorithm", ["schemas.isValidJWT", "schemas.$ZodJWT"]),
        ("pipe the output of one schema into another", ["schemas.$ZodPipe", "schemas.handlePipeResult"]),
        ("group error messages by the top-level field they belong to", ["errors.flattenError"]),
        (
            "convert a schema to json schema, with references for repeated and recursive parts",
            ["to-json-schema.JSONSchemaGenerator.process", "to-json-schema.JSONSchemaGenerator.emit"],
        ),
        ("define a property that is computed on first access", ["util.defineLazy"]),
        ("where does an issue get its message from the error maps", ["util.finalizeIssue"]),
    ],
}
