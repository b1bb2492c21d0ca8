"""The resampling engine: plans, samplers, the replicate loop, interval methods."""
