"""The state store's parts (the public face is ``review_monitor.store``).

- ``_db``: the connection, ``read()`` / ``write(at=...)`` transactions (``ReadTx``,
  ``WriteTx``: every part reads and writes through them) and the time codec.
- ``_schema``: parts (``Tables``: a name and its ordered ``Migration`` list), each
  versioned on its own in the ``schema_versions`` ledger; stores from before the split
  (one global ``schema_migrations`` ledger) open with their data.
- ``_watches``, ``_marks``, ``_outbox``, ``_state``: the monitor's parts.
- ``_sync``: ``SyncStore``, the blocking API, those parts over one database, and
  ``commit`` (a listener's mark and its notices in one transaction).
- ``_async``: ``Store``, the async face: ``await store.call(fn, *args, **kwargs)`` runs
  ``fn(store.sync, *args, **kwargs)`` on an executor (``run_in_thread``, or
  ``run_inline`` on the event loop) and returns its result, where ``fn`` is a
  ``SyncStore`` method (``store.call(SyncStore.due, now)``) or an application's
  function over the store; and the daemon's lease.

An application registers its own parts when it opens the store,
``SyncStore.open(path, tables=[MY_TABLES])``, ``Store.open(path, tables=...)`` or
``Monitor(tables=...)``, and writes them in the monitor's transactions:
``commit(..., also=fn)`` and ``mark_delivered(..., also=fn)`` call ``fn(tx)`` inside
theirs, and ``with db.write(at=now) as tx:`` opens one of its own (``add_watch(tx, ...)``
puts a watch in it).  docs/monitor.md ("The state store") has the whole story.
"""
