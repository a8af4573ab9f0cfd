"""The casino back office project package: settings, URLs, WSGI/ASGI and the Celery app."""

from casino.celery import app as celery_app

__all__ = ["celery_app"]
