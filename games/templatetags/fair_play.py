"""The staff frame's alert banner: how many collusion alerts wait for review (one count)."""

from __future__ import annotations

from django import template

from games.models import CollusionAlert

register = template.Library()


@register.simple_tag
def open_collusion_alerts() -> int:
    return CollusionAlert.objects.filter(reviewed_at__isnull=True).count()
