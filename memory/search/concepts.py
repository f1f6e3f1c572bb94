"""A general software-engineering concept map: groups of words that name the same thing.

A prompt rarely reuses the words of the insight it needs ("the package manager" vs "pnpm"), so every
entry and every query also carries the concepts of its words, matched as a separate, down-weighted field.
The groups are written from general knowledge of software work, never from a benchmark's prompts: they
must hold for any project. The entry tag vocabulary (memory.store.entry.TAG_VOCABULARY) is folded in.
"""
from __future__ import annotations

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

GROUPS: tuple[str, ...] = (
    # dependencies and packaging
    "install dependency package library module npm pnpm yarn pip pipx poetry uv conda cargo gem bundler "
    "composer nuget maven lockfile requirements vendor upgrade downgrade semver",
    "version release tag changelog semver bump pin pinned",
    "publish registry release artifact distribute wheel tarball",
    # testing
    "test spec pytest jest vitest mocha unittest xctest assert assertion coverage fixture mock stub fake "
    "snapshot flaky e2e integration regression",
    "flaky intermittent nondeterministic random sporadic race timing",
    # build and tooling
    "build compile compiler bundle bundler webpack vite esbuild rollup babel tsc bazel gradle cmake make "
    "makefile linker toolchain transpile",
    "lint linter eslint prettier ruff flake8 pylint black format formatter style clippy gofmt rubocop",
    "type typing typed typescript mypy pyright annotation generic interface protocol",
    # version control and review
    "git commit branch merge rebase cherry checkout stash worktree diff conflict history blame",
    "review pull request pr approve reviewer merge",
    "hook precommit husky lefthook",
    # ci and delivery
    "ci pipeline workflow action actions jenkins buildkite circleci gitlab runner job",
    "deploy deployment release ship rollout rollback production staging prod environment",
    "docker container image dockerfile compose kubernetes k8s pod helm cluster",
    "cloud aws gcp azure lambda serverless s3 bucket terraform infrastructure",
    # data
    "database db sql sqlite postgres postgresql mysql mariadb mongo mongodb redis table column row schema "
    "query orm prisma sqlalchemy knex",
    "migration migrate schema alter column table rollback seed",
    "index query slow scan explain join",
    "transaction commit rollback isolation lock deadlock atomic",
    "cache caching memoize memo ttl invalidate invalidation redis memcached stale",
    "queue job worker background celery sidekiq kafka rabbitmq message consumer producer broker",
    "json yaml toml xml csv serialize deserialize parse parser encode decode schema",
    "file path directory folder filesystem disk tmp temp",
    # web and api
    "api endpoint route router rest graphql grpc http request response handler controller url",
    "http status header cookie cors redirect proxy",
    "server backend service microservice express fastapi flask django rails spring nginx",
    "client frontend browser ui web page",
    "react vue svelte angular component jsx tsx hook props state render",
    "css style stylesheet tailwind layout flexbox grid theme dark color font",
    "ui ux button modal dialog form input menu view window screen layout",
    "mobile ios android swift swiftui kotlin xcode simulator app",
    "websocket socket realtime stream streaming sse push",
    # security and auth
    "auth authentication login logout signin signup session token jwt oauth sso password credential user",
    "permission authorization role access acl forbidden unauthorized admin scope",
    "secret key token credential password env vault leak redact",
    "security vulnerability xss csrf injection sanitize escape cve audit",
    "encrypt encryption decrypt tls ssl certificate https hash crypto signature",
    # runtime behaviour
    "error exception crash panic failure fail traceback stacktrace stack bug throw raise",
    "timeout hang hung stuck freeze slow latency deadline wait",
    "retry backoff retries transient resilient idempotent",
    "performance perf slow fast speed latency throughput optimize profiling profile benchmark bottleneck",
    "memory leak heap oom allocation garbage gc",
    "async await asyncio promise future coroutine callback eventloop nonblocking",
    "concurrency concurrent thread threading parallel mutex lock race deadlock atomic actor goroutine channel "
    "semaphore sendable",
    "process subprocess spawn fork pid signal kill exit shell command",
    # configuration and environment
    "config configuration setting settings option flag env environment variable dotenv yaml toml ini",
    "feature flag toggle experiment rollout",
    "locale timezone time date datetime utc timestamp clock",
    "encoding utf8 unicode ascii charset emoji byte bytes",
    "log logging logger trace tracing telemetry metric metrics monitoring observability sentry alert",
    "debug debugger breakpoint inspect print",
    # languages and runtimes
    "python py pip venv virtualenv pyproject setuptools django flask fastapi",
    "javascript js node nodejs npm typescript ts deno bun",
    "rust cargo crate borrow lifetime trait",
    "go golang goroutine module gofmt",
    "java kotlin jvm gradle maven spring",
    "ruby rails gem bundler",
    "shell bash zsh sh script posix cli terminal command",
    # project work
    "doc docs documentation readme comment docstring",
    "refactor rename cleanup restructure extract simplify",
    "api breaking deprecate deprecated compatibility backward",
    "email mail smtp notification send",
    "payment billing invoice stripe subscription checkout",
    "search filter sort pagination paginate cursor offset limit",
    "upload download file attachment storage blob",
    "image picture photo thumbnail resize media video",
    "network dns port host localhost connection socket tcp",
    "startup boot init initialize launch",
    # everyday synonyms of software work: the words people use for the same thing
    "hang hangs freeze frozen stuck hung unresponsive blocks forever infinite deadlock",
    "interactive shell terminal tty console session prompt repl",
    "environment env devenv virtualenv nix flox devcontainer activate toolchain sandbox",
    "shard sharded sharding partition partitioned replica replicated replication node cluster distributed",
    "queue bus broker kafka stream topic pubsub ingest ingestion consumer producer event",
    "analytics warehouse clickhouse olap bigquery snowflake redshift aggregation aggregate event",
    "dataclass record struct model pydantic namedtuple attrs entity dto typeddict",
    "frozen immutable readonly const mutable mutation mutate",
    "background async celery worker task job defer offload cron scheduled",
    "prefetch eager lazy select_related prefetch_related join batch dataloader n+1 loop",
    "label text copy caption title wording casing capitalization capitalize string i18n translation",
    "nesting nested indentation early return guard clause complexity readability",
    "snapshot golden approval baseline expected output regression",
    "rerun rerunning retry failed failing red broken previous last",
    "seed seeded fixture sample demo account user credential login password",
    "round robin rotation weighted weight fairness balance balancing distribution assign assignment",
    "mock stub fake spy double patch monkeypatch",
    "dialog modal popup popover overlay drawer sheet tooltip",
    "mount mounted unmount render load effect fetch eager",
    "controller handler endpoint route service business logic layer repository",
    "name naming convention filename kebab camelcase snake pascal rename",
    "timezone tz utc locale offset dst daylight",
    "generate generated codegen generation regenerate gen prisma stub",
    "timestamp created updated createdat updatedat inserted modified date",
    "nullable null default blank empty optional missing backfill",
    "e2e browser playwright cypress selenium headless puppeteer",
    "required check status mandatory gate blocked label",
    "split separate separately together combined pr",
    "injection di wire provider container inject constructor",
    "flag toggle switch experiment gate rollout featureflag",
    "node nodejs nvm runtime nvmrc volta",
    "watch watcher watchmode hot reload exit once",
    "typecheck static analysis mypy tsc pyright checker lint",
    "sdk client library package binding wrapper",
    "slow long minutes hours sluggish expensive heavy",
    "page screen view route",
    "delete remove drop purge prune clean",
    "add create new insert introduce",
    "permission sudo root admin privilege",
    "generated vendor thirdparty external",
)


def _build() -> dict[str, list[int]]:
    from memory.search.tokenize import terms
    from memory.store.entry import TAG_VOCABULARY

    groups: list[Iterable[str]] = [g.split() for g in GROUPS]
    groups.extend([tag, *words] for tag, words in TAG_VOCABULARY.items())
    term_to_concepts: dict[str, list[int]] = {}
    for number, words in enumerate(groups):
        for word in words:
            for term in terms(word):
                ids = term_to_concepts.setdefault(term, [])
                if number not in ids:
                    ids.append(number)
    return term_to_concepts


_MAP: dict[str, list[int]] = {}


def term_map() -> dict[str, list[int]]:
    """term -> concept numbers. Stemming every group word costs ~10 ms, so memory.search.index stores the map
    (under its fingerprint) and hands it back through `seed`."""
    if not _MAP:
        _MAP.update(_build())
    return _MAP


def seed(stored: dict[str, list[int]]) -> None:
    """Use a map computed earlier by term_map (by a process with the same code: the index checks that)."""
    if not _MAP:
        _MAP.update(stored)


def concepts(term_list: Iterable[str]) -> list[str]:
    """The concept ids (`~12`) of already tokenized terms, one per term and concept, in order."""
    mapping = term_map()
    out = []
    for term in term_list:
        for number in mapping.get(term, ()):
            out.append(f"~{number}")
    return out


def concept_name(concept_id: str) -> str:
    """A readable name for a concept id: the first word of its group."""
    from memory.store.entry import TAG_VOCABULARY

    number = int(concept_id.lstrip("~"))
    if number < len(GROUPS):
        return GROUPS[number].split()[0]
    return list(TAG_VOCABULARY)[number - len(GROUPS)]
