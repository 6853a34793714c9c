"""Fleet mode: the index in Redis, loaded by Celery workers (``dash-insight worker``).

:mod:`.loading` holds what a worker does (discovery, loading one job) without Celery;
:mod:`.worker` wraps it in Celery tasks. Nothing here is imported in the single-machine mode.
"""
