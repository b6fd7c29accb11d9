"""No-op Celery tasks: the baseline a pipeline step is compared with (same broker, same worker
settings, nothing but messaging)."""

from celery import shared_task


@shared_task(name="bench.noop")
def noop(token: str) -> None:
    return None
