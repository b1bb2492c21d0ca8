"""The classical toolbox: analytic intervals, significance tests, planning, corrections."""
