import Halley

/// The version and the help texts. The help is part of the contract: it documents the
/// exit statuses, the trace format and the links table that scripts parse.
enum HelpText {
    /// The tool's version, printed by `halley --version`: the library's, written in one place.
    static let version = HalleyVersion.current

    /// The tool's `User-Agent`, `halley/<version>`, unless a `--header` gives one.
    static let userAgent = "halley/" + version

    /// The help for `command`, or the overview when `nil`.
    static func text(for command: String?) -> String {
        switch command {
        case "get": return get
        case "items": return items
        case "links": return links
        case "expand": return expand
        case "forms": return forms
        case "submit": return submit
        case "send": return send
        default: return overview
        }
    }

    /// `halley --help`: the commands, an example, the exit statuses.
    static let overview = """
        halley \(version): a HAL (application/hal+json) client.

        USAGE
          halley get <url-or-template> [options]   fetch a resource and its relationships, print JSON
          halley items <url> [--limit N]           print a collection's items, every page, one JSON
                                                   document per line
          halley links <url> [options]             print a resource's links as a table
          halley expand TEMPLATE [--var N=V]...    expand an RFC 6570 URI template
          halley forms <url> [options]             print a resource's HAL-FORMS templates
          halley submit <url> [--field N=V]...     check values against a template and send them
          halley send METHOD <url> [--data JSON]   send an action (POST, PUT, PATCH, DELETE, ...),
                                                   print the response
          halley help [COMMAND] | --help | --version

        Run 'halley COMMAND --help' for a command's options. A URL without a scheme is
        http, as with curl: halley get localhost:8080/orders.

        EXAMPLE
          halley get --fixtures Fixtures/api https://api.example.com/contacts/1 \\
              --include "[contacts].website"

        Every command that sends requests takes --timeout, --deadline and --retries,
        -i/--show-headers and -v/--verbose, and the TLS, proxy and HTTP version options of
        curl: --cacert, --cert, --key, --pass, --pinned-pubkey, -k/--insecure, -x/--proxy,
        --noproxy, --http1.1, --http2.

        \(exitStatus)
        """

    /// The exit status table, shared by every help text.
    static let exitStatus = """
        EXIT STATUS
          0  success (with --allow-partial, also when some relationships were left out)
          1  HTTP or network failure, including a failed relationship without --allow-partial
          2  usage error: unknown command or option, missing or malformed value
          3  invalid input: not JSON, not a HAL object, bad link, bad URI template or URL,
             unsupported scheme, bad include path, missing or unusable template, values a
             template rejects
          4  out of time: an attempt passed --timeout, or the command passed --deadline

          Library error (HalleyError.code)                           exit
          http, transport, limitExceeded                              1
          invalidDocument, malformedLink, invalidTemplate, invalidURL,
          unsupportedScheme, invalidInclude, ambiguousRelation,
          decoding, missingRelation, missingForm, formValidation,
          unsupportedContentType                                      3
          timeout                                                     4
          any other code                                              1

        Errors are one line on stderr starting with "halley: ".
        """

    /// The options of every command that sends requests, shared by their help texts.
    static let policyOptions = """
          --timeout SECONDS       give up on one attempt after SECONDS (e.g. 10 or 0.5);
                                  the attempt fails with exit status 4 unless a retry follows
          --deadline SECONDS      give up on the whole command after SECONDS, every request,
                                  redirect and retry included (exit status 4)
          --retries N             try a failed request up to N more times (0 to 100): on
                                  network errors, timeouts and 408, 429, 502, 503, 504, with
                                  backoff from 0.2 s and Retry-After honoured; GET, HEAD, PUT,
                                  DELETE and OPTIONS only, never POST or PATCH
          -i, --show-headers      print each response's status line and header fields on
                                  stderr: "< HTTP/2 200 OK (GET URL)", then "< Name: value"
          -v, --verbose           print a trace line per request (see TRACE in 'halley get
                                  --help'), each followed by its connection line (address,
                                  new or reused, protocol, TLS version and timings) and, as
                                  curl does, the request: "> GET /path HTTP/1.1", then
                                  "> Name: value" per header field sent (Host first; the
                                  transport's own, such as Accept-Encoding, not shown)
        """

    /// The TLS, proxy and HTTP version options, shared by the help texts of every command that
    /// sends requests.
    static let transportOptions = """
        TLS, PROXY AND HTTP VERSION (as curl)
          --cacert FILE           also trust the CA certificates in FILE (PEM), beside the
                                  system's; repeatable
          --cert FILE             present the client certificate in FILE (PEM); its key is
                                  read from FILE too unless --key is given
          --key FILE              the client certificate's private key (PEM)
          --pass PHRASE           the passphrase of an encrypted --key
          --pinned-pubkey sha256//BASE64[;sha256//BASE64]...
                                  accept only servers whose public key has one of these
                                  SHA-256 digests
          -k, --insecure          accept any server certificate, expired or self-signed (its
                                  host name is still checked); warns on every use
          -x, --proxy URL         send requests through the proxy URL,
                                  http://[user:password@]host[:port] (port 1080 if none)
          --noproxy HOSTS         comma-separated hosts that skip the proxy (replaces NO_PROXY)
          --http1.1               speak HTTP/1.1 only
          --http2                 ask for HTTP/2, over plain http too (h2c upgrade)
          A file that is missing or not PEM is a usage error naming it (exit status 2);
          a certificate that is not trusted fails with exit status 1 and says why.
          Without --proxy, http_proxy, https_proxy (or HTTPS_PROXY), ALL_PROXY and NO_PROXY
          pick the proxy as curl reads them (HTTP_PROXY in capitals is ignored). Through a
          proxy, https requests go in a CONNECT tunnel, where the proxy sees only the host;
          a plain http request with --header values is refused rather than sent through the
          proxy in clear: use https, or --noproxy for that host.
        """

    /// `halley get --help`, with the stderr line formats and the trace format.
    static let get = """
        USAGE
          halley get <url-or-template> [--include PATH]... [--var NAME=VALUE]...
                     [--header "Name: Value"]... [--max-concurrency N] [--allow-partial]
                     [--prefer-links] [--allow-origin ORIGIN]... [--compact] [--trace]
                     [--strict] [--fixtures DIR] [--timeout SECONDS] [--deadline SECONDS]
                     [--retries N] [-i] [-v]
                     [TLS, proxy and HTTP version options]

        Fetches the resource, follows every --include (using _embedded when present), and
        prints the merged document on stdout: pretty-printed with sorted keys, or one line
        with --compact. A root holding '{' is a URI template expanded with the --var values.

        OPTIONS
          --include PATH          a relationship to fetch and merge under its rel; repeatable.
                                  "rel" is to-one, "[rel]" to-many, "a.[b].c" nests,
                                  "rel@name" picks the link named name, "\\"x.y\\"" quotes a
                                  rel holding dots; e.g. "[contacts].website"
          --var NAME=VALUE        a template variable for the root and every templated link
                                  followed; repeatable, the last one for a NAME wins. VALUE is
                                  one string: a,b,c is not a list
          -H, --header "Name: Value"
                                  a request header; repeatable. Sent to the root URL's origin
                                  and the --allow-origin ones only, never to other hosts the
                                  documents link to (nor across redirects to them)
          --allow-origin ORIGIN   also send the headers to ORIGIN (scheme://host[:port]);
                                  repeatable
          --max-concurrency N     at most N requests in flight (N >= 1; default 8)
          --allow-partial         keep what succeeded: each failed relationship is left out
                                  and listed on stderr, and the exit status is 0 (a failed
                                  root still fails)
          --prefer-links          follow links even when the relation is embedded
          --compact               print the JSON on one line (keys still sorted)
          --trace                 print each request and a waterfall on stderr (see TRACE)
          --strict                fail (exit status 3) when a resource lacks an included
                                  relation, naming the include path and the rels it has;
                                  without it, the relationship is left out with a note
          --fixtures DIR          answer from files instead of the network; the host is
                                  ignored: /a/b -> DIR/a/b.json, / -> DIR/index.json,
                                  /a/b?q=1 -> DIR/a/b@q=1.json
        \(policyOptions)
          -h, --help              show this help

        \(transportOptions)

        STDERR LINES
          halley: warning: followed deprecated link URL (include path "P"); see DEPRECATION
          halley: note: include path "P": a resource has no "REL" relation; left out there
                                                                (without --strict)
          halley: partial: include path "P", URL U: CAUSE      (--allow-partial, per failure)
          halley: note: retrying URL (attempt N) in D seconds: CAUSE   (--retries, per retry)
          halley: MESSAGE                                       (the error, when failing)

        TRACE
          One line per request, as it finishes:
            trace: METHOD URL status=STATUS bytes=N start=S.SSms duration=D.DDms include=PATH
          STATUS is the HTTP status, or "failed" when no response came (bytes=0 then);
          start is the offset from the beginning of the call; PATH is the include path that
          caused the request, "(root)" for the root, and runs to the end of the line.
          With -v (which implies --trace) each is followed by its connection:
            trace:   via=ADDRESS:PORT connection=new|reused protocol=HTTP/2 tls=TLSv1.3
                     dns=D.DDms connect=D.DDms tls-handshake=D.DDms first-byte=D.DDms
                     total=D.DDms
          on one line; tls=none over plain http, and times run from the request's start.
          Then a waterfall, one row per request in start order:
            waterfall: N requests in T.TTms, 1 column = C.CCms
              #1 |=====          ...          | S.SSms +D.DDms PATH URL
          Each bar starts at the request's offset and spans its duration (at least one
          column) on a \(TraceFormat.waterfallWidth)-column axis: overlapping bars ran in parallel.

        EXAMPLES
          halley get --fixtures Fixtures/api https://api.example.com/contacts/1 \\
              --include "[contacts].website"
          halley get --fixtures Fixtures/api "https://api.example.com/contacts{?page}" \\
              --var page=2 --include "[item]" --prefer-links --trace
          halley get https://api.example.com/ --header "Authorization: Bearer $TOKEN" \\
              --allow-origin https://cdn.example.com --include "[orders].customer"

        \(exitStatus)
        """

    /// `halley items --help`: what is printed, and how pages and items are fetched.
    static let items = """
        USAGE
          halley items <url-or-template> [--limit N] [--include PATH]... [--var NAME=VALUE]...
                       [--header "Name: Value"]... [--max-concurrency N] [--prefer-links]
                       [--allow-origin ORIGIN]... [--trace] [--strict] [--fixtures DIR]
                       [--timeout SECONDS] [--deadline SECONDS] [--retries N] [-i] [-v]
                       [TLS, proxy and HTTP version options]

        Prints the items of the collection at <url>, page after page through its "next"
        links, as one compact JSON document per line (keys sorted), each as soon as it
        arrives; ready for jq or a loop that reads lines. A page's items are its
        _embedded.item, else the resources its _links.item link to (fetched in order, a few
        at a time), else its only embedded relation. A resource without items prints nothing
        and exits 0. A "next" link back to a page already read is an error (exit status 1).

        OPTIONS
          --limit N               stop after N items (N >= 1): no page past the one holding
                                  the Nth item is requested
          --include PATH          a relationship merged into every item; repeatable (see
                                  'halley get --help' for the syntax)
          --var NAME=VALUE        expands a templated <url> and templated links; repeatable
          -H, --header "Name: Value"
                                  a request header; repeatable. Sent to <url>'s origin and the
                                  --allow-origin ones only, never to other hosts pages link to
          --allow-origin ORIGIN   also send the headers to ORIGIN (scheme://host[:port])
          --max-concurrency N     at most N requests in flight (N >= 1; default 8)
          --prefer-links          follow an item's links even when the relation is embedded
          --trace                 print each request and a waterfall on stderr (as 'get')
          --strict                fail when an item lacks an included relation
          --fixtures DIR          answer from files instead of the network (see 'halley get --help')
        \(policyOptions)
                                  (--deadline bounds the whole enumeration, every page)
          -h, --help              show this help

        \(transportOptions)

        EXAMPLES
          halley items --fixtures Fixtures/api https://api.example.com/contacts
          halley items https://api.example.com/orders --limit 50 | jq -r .id

        \(exitStatus)
        """

    /// The USAGE block of `links` and `forms`, which take the same options (one document, its
    /// variables, headers and fixtures, and the request options).
    private static func oneDocumentUsage(_ command: String) -> String {
        let indent = String(repeating: " ", count: "  halley \(command) ".count)
        return """
            USAGE
              halley \(command) <url> [--var NAME=VALUE]... [--header "Name: Value"]... [--fixtures DIR]
            \(indent)[--timeout SECONDS] [--deadline SECONDS] [--retries N]
            \(indent)[TLS, proxy and HTTP version options]
            """
    }

    /// The OPTIONS of `links` and `forms` after their `--var` line (which says what each
    /// expands), and the transport options: the same set, as ``oneDocumentUsage(_:)`` lists.
    private static let oneDocumentOptions = """
          -H, --header "Name: Value"
                                  a request header; repeatable
          --fixtures DIR          answer from files instead of the network (see 'halley get --help')
        \(policyOptions)
          -h, --help              show this help

        \(transportOptions)
        """

    /// `halley links --help`, with the table's columns.
    static let links = """
        \(oneDocumentUsage("links"))

        Fetches one document and prints its links as a table, a header row and then one row
        per link in document order. Links of the response's Link header (RFC 8288) that
        _links does not already have come after the _links ones of their relation, and
        relations only in the header come last:
          REL  NAME  HREF  TEMPLATED  TITLE  DEPRECATION  SOURCE
        NAME is the link's HAL "name", HREF is as written (relative hrefs are not resolved;
        those of the Link header are shown resolved against the URL of the response),
        TEMPLATED is "yes" or "no", SOURCE is "_links" or "header", and "-" marks an absent
        value. Columns are left-aligned and separated by at least two spaces; control
        characters show as \\uXXXX.
        Malformed links and Link header values are skipped and listed on stderr
          halley: warning: malformed link skipped: MESSAGE at JSON-PATH in URL
          halley: warning: malformed link skipped: MESSAGE at Link header, byte N in URL
        and the exit status stays 0.

        OPTIONS
          --var NAME=VALUE        expands a templated <url>; repeatable
        \(oneDocumentOptions)

        \(exitStatus)
        """

    /// `halley forms --help`, with the layout scripts read.
    static let forms = """
        \(oneDocumentUsage("forms"))

        Fetches one document asking for HAL-FORMS (Accept: application/prs.hal-forms+json,
        application/hal+json) and prints each template of its _templates, "default" first:
        a heading line, then a table of its properties (a header row and one row per
        property in document order); templates are separated by an empty line.
          KEY: METHOD TARGET (CARRIER) "TITLE"
          NAME  PROMPT  TYPE  REQUIRED  READONLY  VALUE  CONSTRAINTS  OPTIONS
        TARGET is the absolute URL the template sends to (its target, else the resource's
        self link); CARRIER is "query" for GET, HEAD and DELETE, else the content type of
        the body; the title is left out when there is none. REQUIRED and READONLY are "yes"
        or "no"; VALUE is the default value. CONSTRAINTS lists regex=, minLength=,
        maxLength=, min=, max=, step=, then the display hints placeholder="...", cols=,
        rows= and "templated". OPTIONS lists inline values (VALUE=PROMPT when the prompt
        differs) or "link HREF", then "selected ..." and "items MIN..MAX". "-" marks an
        absent value; control characters show as \\uXXXX.
        Malformed templates (no method, an unreadable target, contentType or property name)
        are skipped and listed on stderr
          halley: warning: malformed template skipped: MESSAGE at JSON-PATH in URL
        and members of the wrong type, read as the HAL-FORMS draft says ("true" as true,
        "1" as 1, anything else as absent), keep their template and are listed as
          halley: warning: template KEY kept: MESSAGE at JSON-PATH in URL
        and a document without templates gets
          halley: note: URL has no HAL-FORMS templates (_templates)
        with exit status 0 in both cases.

        OPTIONS
          --var NAME=VALUE        expands a templated <url> and templated targets; repeatable
        \(oneDocumentOptions)

        EXAMPLE
          halley forms https://api.example.com/orders/7

        \(exitStatus)
        """

    /// `halley submit --help`: how values are typed and what a rejection prints.
    static let submit = """
        USAGE
          halley submit <url> [--form KEY] [--field NAME=VALUE]... [--var NAME=VALUE]...
                        [--header "Name: Value"]... [--allow-origin ORIGIN]... [--fixtures DIR]
                        [--timeout SECONDS] [--deadline SECONDS] [--retries N]
                        [TLS, proxy and HTTP version options]

        Fetches <url> asking for HAL-FORMS, fills the template KEY (without --form, the one
        keyed "default", else the first in the document) with the --field values, checks
        every value against the template (required, readOnly, regex, lengths, min/max/step,
        type formats, options, item counts, names the template does not declare), and only
        then sends the request with the template's method and content type: JSON or
        form-encoded bodies, or the query for GET, HEAD and DELETE. Properties without a
        --field send their default value. Members of the template that were not as written
        are listed first, as "halley forms" lists them:
          halley: warning: template KEY kept: MESSAGE at JSON-PATH in URL

        Values are text, except: a number or range property's value that reads as a number
        is sent as a JSON number, a checkbox's "true"/"false" as a Boolean. Repeat --field
        with the same NAME to send a list (a property with options always gets a list,
        unless its maxItems is 1).

        On success the response body is printed on stdout (JSON pretty-printed with sorted
        keys) and one line on stderr:
          halley: note: submitted template "KEY": URL answered STATUS[, Location URL]
        When values break the template, nothing is sent: one line per failure, then the
        error, and exit status 3:
          halley: invalid: NAME: MESSAGE (RULE)
          halley: N values do not satisfy template "KEY" (NAMES); nothing was sent

        OPTIONS
          --form KEY              the template to submit (default: "default", else the first)
          --field NAME=VALUE      a value; repeatable, a repeated NAME makes a list
          --var NAME=VALUE        expands a templated <url>, templated targets and default
                                  values; repeatable
          -H, --header "Name: Value"
                                  a request header; repeatable. Sent to <url>'s origin and the
                                  --allow-origin ones only, not to a target elsewhere
          --allow-origin ORIGIN   also send the headers to ORIGIN (scheme://host[:port])
          --fixtures DIR          answer from files instead of the network (see 'halley get --help')
        \(policyOptions)
          -h, --help              show this help

        \(transportOptions)

        EXAMPLE
          halley submit https://api.example.com/orders --field item=book --field quantity=2

        \(exitStatus)
        """

    /// `halley send --help`: where the action goes, what is sent, what is printed.
    static let send = """
        USAGE
          halley send METHOD <url> [--rel REL] [--data JSON | --data @FILE] [--var NAME=VALUE]...
                      [--header "Name: Value"]... [--allow-origin ORIGIN]...
                      [--timeout SECONDS] [--deadline SECONDS] [--retries N]
                      [TLS, proxy and HTTP version options]

        Sends METHOD (POST, PUT, PATCH, DELETE or any other token; the common ones in any
        case) to <url>, or with --rel to the target of that relation of the resource at <url>
        (fetched first, with GET; a templated link expands with the --var values, a relative
        href resolves against the resource's URL). --data is sent as given, as
        application/json unless a --header names another Content-Type; it must be JSON.

        On a 2xx answer the response body is printed on stdout (JSON pretty-printed with
        sorted keys, anything else as text, nothing for an empty body) and one line on stderr:
          halley: note: METHOD URL answered STATUS[, Location URL]
        Any other status is an error (exit status 1) whose line carries the problem details.

        OPTIONS
          --rel REL               send to the target of REL (a link, or an embedded
                                  resource's self link) instead of to <url>
          --data JSON             the request body: JSON text, or @FILE for a file's content
                                  (at most 16 MiB); invalid JSON is a usage error naming the
                                  byte and JSON path where it fails
          --var NAME=VALUE        expands a templated <url> and a templated REL link;
                                  repeatable
          -H, --header "Name: Value"
                                  a request header; repeatable. Sent to the origin of <url> and
                                  the --allow-origin ones only: with --rel, not to a target
                                  elsewhere
          --allow-origin ORIGIN   also send the headers to ORIGIN (scheme://host[:port])
        \(policyOptions)
                                  (--retries retries the GET of --rel always, the action only
                                  when METHOD is idempotent; a note says when it is not)
          -h, --help              show this help

        \(transportOptions)

        EXAMPLES
          halley send POST https://api.example.com/orders --data '{"item": "book", "quantity": 2}'
          halley send PATCH https://api.example.com/orders/7 --data @patch.json \\
              --header "Content-Type: application/merge-patch+json"
          halley send DELETE https://api.example.com/orders/7 --rel ea:cancel --timeout 5

        \(exitStatus)
        """

    /// `halley expand --help`.
    static let expand = """
        USAGE
          halley expand TEMPLATE [--var NAME=VALUE]...

        Prints the RFC 6570 expansion of TEMPLATE; no network. Variables not given are
        undefined (skipped). VALUE is one string: a,b,c is not a list.
        An invalid template exits with 3 and names the offset of the problem.

        EXAMPLE
          halley expand "/contacts{?page,size}" --var page=2 --var size=10
          /contacts?page=2&size=10

        \(exitStatus)
        """
}
