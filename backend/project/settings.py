"""Settings from environment variables, with embedded defaults that need no setup.

Embedded (default): chdb in-process under VERISCREEN_DATA_DIR, SQLite, in-memory Celery broker and
channel layer, the built-in language engine. Production: set CLICKHOUSE_URL, DATABASE_URL and
REDIS_URL (see deploy/ and README).
"""

import os
import tempfile
from pathlib import Path

import environ
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from backend.apps.marketdata.schedule import crontab_from
from backend.domain.language.llm.settings import LlmSettings
from backend.domain.market.sync.plan import SYNC_SOURCES

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
if (BASE_DIR / ".env").is_file():
    environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DATA_DIR = Path(env.str("VERISCREEN_DATA_DIR", default=str(BASE_DIR / "var")))
DATA_DIR.mkdir(parents=True, exist_ok=True)  # SQLite and chdb need their directory to exist

DEFAULT_SECRET_KEY = "embedded-development-key-change-me-in-production"
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default=DEFAULT_SECRET_KEY)
DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])

# --- Production: VERISCREEN_PRODUCTION=1 (explicit; nothing is guessed from other variables) turns on
# the HTTPS-only settings `manage.py check --deploy` asks for, and refuses to start with the default or
# an empty secret key, or with debug on. TLS ends at the proxy, which sends X-Forwarded-Proto.
PRODUCTION = env.bool("VERISCREEN_PRODUCTION", default=False)
if PRODUCTION and SECRET_KEY in {DEFAULT_SECRET_KEY, ""}:
    raise SystemExit("VERISCREEN_PRODUCTION=1 refuses the default DJANGO_SECRET_KEY: set a long random one")
if PRODUCTION and DEBUG:
    raise SystemExit("VERISCREEN_PRODUCTION=1 refuses DJANGO_DEBUG=1: debug pages leak settings and data")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=PRODUCTION)
# Probes and scrapes come over plain HTTP from inside the deployment, not through the TLS proxy.
SECURE_REDIRECT_EXEMPT = [r"^api/health/", r"^metrics$"]
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if PRODUCTION else None
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=31_536_000 if PRODUCTION else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = PRODUCTION
SECURE_HSTS_PRELOAD = PRODUCTION
SESSION_COOKIE_SECURE = PRODUCTION
CSRF_COOKIE_SECURE = PRODUCTION

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI assets served locally: no CDN needed offline
    "channels",
    "rest_framework.authtoken",
    "backend.apps.web",
    "backend.apps.accounts",
    "backend.apps.jobs",
    "backend.apps.screens",
    "backend.apps.semantic",
    "backend.apps.marketdata",
    "backend.apps.screening",
    "backend.apps.equivalence",
    "paradigms",
]

MIDDLEWARE = [
    "backend.apps.web.request_id.RequestIdMiddleware",  # outermost: error handlers run under the id
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # serves the built frontend under daphne
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "backend.apps.marketdata.middleware.QueryExecutionMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "backend.project.urls"
ASGI_APPLICATION = "backend.project.asgi.application"
WSGI_APPLICATION = "backend.project.wsgi.application"

FRONTEND_DIST = BASE_DIR / "frontend" / "dist"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [FRONTEND_DIST],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{DATA_DIR / 'veriscreen.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # An unreachable server fails the start-up check and requests within seconds, not minutes.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 5)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Jobs write from several threads at once (the runner, each job's event writer): wait for the write
    # lock instead of failing, and take it when a transaction starts (a read that later writes cannot
    # fail midway). Tests use a file for the same reason: an in-memory shared-cache database fails a
    # concurrent write at once ("database table is locked").
    DATABASES["default"].setdefault("OPTIONS", {}).update({"timeout": 30, "transaction_mode": "IMMEDIATE"})
    # One file per test process: concurrent test runs never share (or delete) each other's database.
    test_database = Path(tempfile.gettempdir()) / f"veriscreen-test-{os.getpid()}.sqlite3"
    DATABASES["default"].setdefault("TEST", {}).setdefault("NAME", str(test_database))
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "Asia/Shanghai"
USE_I18N = True
USE_TZ = True  # no naive datetimes anywhere

STATIC_URL = "/static/"
STATIC_ROOT = DATA_DIR / "static"
# Vite emits /static/assets/<hashed file>; keep the "assets" prefix so the URLs resolve.
STATICFILES_DIRS = [("assets", FRONTEND_DIST / "assets")] if (FRONTEND_DIST / "assets").is_dir() else []

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "backend.apps.web.exceptions.api_exception_handler",
    "DEFAULT_PARSER_CLASSES": [
        "backend.apps.web.parsers.JsonParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # Tokens first: an anonymous request is answered 401 with `WWW-Authenticate: Token`. The browser's
    # session works too (with CSRF on unsafe methods).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    # Requests per client: anonymous per address, signed-in per user (DRF rate syntax: N/second|minute|…).
    "DEFAULT_THROTTLE_RATES": {
        "anon": env.str("API_THROTTLE_ANON", default="300/minute"),
        "user": env.str("API_THROTTLE_USER", default="1200/minute"),
        # Password guesses at login and token: per client address, and per username over all addresses.
        "credentials": env.str("API_THROTTLE_LOGIN", default="10/minute"),
        "credentials_user": env.str("API_THROTTLE_LOGIN_USER", default="30/hour"),
    },
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
}
# Largest request body in bytes; a larger one is refused with 413 request_too_large before it is parsed.
# The API takes a question or one SQL statement (at most 20,000 characters): 1 MiB is ample.
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("API_MAX_BODY_BYTES", default=1024 * 1024)
SPECTACULAR_SETTINGS = {
    "TITLE": "VeriScreen API",
    "DESCRIPTION": "Natural-language stock screening with self-checked answers.",
    "VERSION": "0.1.0",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Two event fields are both called `outcome`: name their choice sets after what they are.
    "ENUM_NAME_OVERRIDES": {
        "StepOutcomeEnum": "backend.domain.pipeline.trace.STEP_OUTCOMES",
        "ParadigmOutcomeEnum": "backend.domain.pipeline.trace.PARADIGM_OUTCOMES",
    },
}

# --- Redis: Celery broker and Channels layer in production; in-memory when unset ---------------
REDIS_URL = env.str("REDIS_URL", default="")
CHANNEL_LAYER_SOCKET_TIMEOUT_SECONDS = 30
# A WebSocket joins its job's group within this; if the layer cannot be reached it still gets the
# stored events, then a close (1013) it reconnects on (backend/apps/jobs/consumers.py).
CHANNEL_LAYER_JOIN_TIMEOUT_SECONDS = 10.0
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # Deployments (or test runs) sharing one Redis keep their groups apart by prefix.
            # A consumer waits on BZPOPMIN for 5 s at a time; redis-py's default socket timeout is 5 s
            # too, so under load the read timed out first and the WebSocket closed with 1011.
            "CONFIG": {
                # A pooled connection idle for more than 5 s is checked (PING) before use, and a command
                # or check that finds its connection reset (a Redis restart) reconnects and is tried
                # again: redis-py's pools retry nothing unless told, so the first use after a restart
                # failed and closed the WebSocket with 1011.
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_timeout": CHANNEL_LAYER_SOCKET_TIMEOUT_SECONDS,
                        "health_check_interval": 5,
                        "retry": AsyncRetry(ExponentialBackoff(cap=1.0, base=0.05), retries=3),
                        "retry_on_error": [RedisConnectionError, RedisTimeoutError],
                    }
                ],
                "prefix": env.str("CHANNEL_LAYER_PREFIX", default="veriscreen"),
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL or "memory://")
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default=REDIS_URL or "cache+memory://")
# Embedded mode: one process serves the web app and runs the jobs.
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
# The queue tasks are sent to and workers consume (deployments sharing one Redis use their own).
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_TASK_DEFAULT_QUEUE", default="celery")
CELERY_TIMEZONE = TIME_ZONE

# --- Jobs: where asked questions run (threads = inside the web process; celery = on the workers) -----
JOB_RUNNER = env.str("JOB_RUNNER", default="celery" if REDIS_URL else "threads")
JOB_THREADS = env.int("JOB_THREADS", default=4)  # jobs running at once in the web process (threads)
# A running job writes a heartbeat this often; one silent for JOB_STALE_SECONDS is failed (worker_lost)
# when a worker or the embedded runner starts.
JOB_HEARTBEAT_SECONDS = env.int("JOB_HEARTBEAT_SECONDS", default=10)
JOB_STALE_SECONDS = env.int("JOB_STALE_SECONDS", default=120)

# Cache (throttling counters, market stats per data fingerprint): Redis in production, else in memory.
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Market data (ClickHouse) ------------------------------------------------------------------
# chdb:///<dir> runs ClickHouse in-process; clickhouse://user:password@host:8123 talks to a server.
CLICKHOUSE_URL = env.str("CLICKHOUSE_URL", default=f"chdb:///{DATA_DIR / 'chdb'}")
CLICKHOUSE_DATABASE = env.str("CLICKHOUSE_DATABASE", default="market")
CLICKHOUSE_CLUSTER = env.str("CLICKHOUSE_CLUSTER", default="")
QUERY_MAX_EXECUTION_SECONDS = env.int("QUERY_MAX_EXECUTION_SECONDS", default=30)
QUERY_MAX_RESULT_ROWS = env.int("QUERY_MAX_RESULT_ROWS", default=100_000)
QUERY_MAX_MEMORY_BYTES = env.int("QUERY_MAX_MEMORY_BYTES", default=4 * 1024**3)
# Concurrent market queries: running at once, per user, and waiting before a 503 with Retry-After.
QUERY_MAX_CONCURRENCY = env.int("QUERY_MAX_CONCURRENCY", default=4)
QUERY_PER_USER_RUNNING = env.int("QUERY_PER_USER_RUNNING", default=3)
QUERY_QUEUE_LIMIT = env.int("QUERY_QUEUE_LIMIT", default=64)

# --- Daily sync of real A-share data (manage.py market sync; celery beat runs it when started) ------
# Tushare Pro token; MARKET_SYNC_CRON is "minute hour day-of-month month day-of-week" in TIME_ZONE
# (default 18:30 on weekdays, after the 15:00 close once Tushare has published); empty = no schedule.
# MARKET_SYNC_SOURCE: what the scheduled sync fetches from, tushare (token) or akshare (free, slower).
# Embedded mode has no beat: run `manage.py market sync` yourself. The task goes to the market_sync
# queue, for a worker whose CLICKHOUSE_URL is the loader user (the web app's user is read-only).
TUSHARE_TOKEN = env.str("TUSHARE_TOKEN", default="")
MARKET_SYNC_CRON = env.str("MARKET_SYNC_CRON", default="30 18 * * 1-5")
MARKET_SYNC_SOURCE = env.str("MARKET_SYNC_SOURCE", default="tushare")
if MARKET_SYNC_SOURCE not in SYNC_SOURCES:
    raise SystemExit(f"MARKET_SYNC_SOURCE={MARKET_SYNC_SOURCE!r}: expected one of {', '.join(SYNC_SOURCES)}")
CELERY_TASK_ROUTES = {"marketdata.sync_market": {"queue": "market_sync"}}
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {}
if MARKET_SYNC_CRON:
    CELERY_BEAT_SCHEDULE["market-sync-after-close"] = {
        "task": "marketdata.sync_market",
        "schedule": crontab_from(MARKET_SYNC_CRON),
    }

# --- Metrics (/metrics, backend/apps/web/metrics.py). PROMETHEUS_MULTIPROC_DIR (read by
# prometheus-client itself): a directory the web server and the workers of one host share, emptied when
# the deployment starts; /metrics then adds up every process's samples. METRICS_WORKER_PORT: a Celery
# worker also serves them on this port (for workers that share no directory with a web server).
METRICS_MULTIPROCESS_DIR = env.str("PROMETHEUS_MULTIPROC_DIR", default="")
if METRICS_MULTIPROCESS_DIR:
    Path(METRICS_MULTIPROCESS_DIR).mkdir(parents=True, exist_ok=True)
METRICS_WORKER_PORT = env.int("METRICS_WORKER_PORT", default=0)

# --- Paradigm library: reuse threshold τ (tree edit distance), capacity (LFU eviction), matches returned
PARADIGM_TAU = env.float("PARADIGM_TAU", default=3.0)
PARADIGM_CAPACITY = env.int("PARADIGM_CAPACITY", default=10_000)
PARADIGM_TOP_K = env.int("PARADIGM_TOP_K", default=5)

# --- Validation pipeline: correction rounds after the first candidate fails its checks (0 = none)
PIPELINE_MAX_ROUNDS = env.int("PIPELINE_MAX_ROUNDS", default=3)

# --- Language engine / LLM roles -----------------------------------------------------------------
# LLM_PROVIDER=builtin (default) answers with the built-in engine; openai uses the LLM roles through
# any OpenAI-compatible endpoint. Shared defaults: LLM_BASE_URL, LLM_MODEL, LLM_API_KEY, LLM_TIMEOUT
# (seconds), LLM_MAX_RETRIES, LLM_TEMPERATURE, LLM_STRUCTURED_OUTPUT (function_calling | json_schema |
# json_mode). Each may be overridden per role as LLM_<ROLE>_<KEY>, roles being SQL_GENERATOR,
# QST_PARSER, PARADIGM_ADAPTER, REVERSE_QUESTION_WRITER and JUDGE (e.g. LLM_QST_PARSER_MODEL);
# LLM_ON_FAILURE / LLM_<ROLE>_ON_FAILURE (builtin | fail) say what a role's failure leaves.
LLM_SETTINGS = LlmSettings.from_mapping(
    {key: value for key, value in os.environ.items() if key.startswith("LLM_")}
)
LLM_PROVIDER = LLM_SETTINGS.provider

# One JSON object per line (backend/apps/web/logs.py), naming the request and the job it belongs to
# (null outside one); error bodies of 5xx quote the same request id. Celery keeps this configuration
# instead of installing its own handlers on the root logger.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "backend.apps.web.logs.LogContextFilter"}},
    "formatters": {"json": {"()": "backend.apps.web.logs.JsonFormatter"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["context"], "formatter": "json"},
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="WARNING")},
}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
