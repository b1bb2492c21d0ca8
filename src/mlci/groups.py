"""placeholder"""


def _pandas():
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        raise ImportError("This needs pandas: pip install mlci[pandas]") from None
    return pd
