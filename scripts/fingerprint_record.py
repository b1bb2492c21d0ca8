"""The record step of the refactoring fingerprints (``scripts/refactor_fingerprint.py``,
``scripts/review12_fingerprint.py``): a call's result (its repr, or an error's class and
text) and the classes and messages of the warnings it gave."""

import warnings


def recorder(out):
    """``rec(key, call)``: ``out[key] = (repr of call()'s result, sorted warnings)``; a
    ``GroupResult`` is recorded by its rows."""

    def rec(key, obj):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                r = obj()
            except Exception as e:
                r = ("ERR", type(e).__name__, str(e))
        msgs = sorted({f"{x.category.__name__}:{x.message}" for x in w})
        if hasattr(r, "rows") and callable(r.rows) and type(r).__name__ == "GroupResult":
            r = r.rows()
        out[key] = (repr(r), msgs)

    return rec
