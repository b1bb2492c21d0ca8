"""Binary score analysis: scores, confusion matrices, curves, verification metrics, groups."""
