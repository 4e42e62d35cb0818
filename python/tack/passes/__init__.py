"""IR → IR passes. `pipeline.lower` runs them in order; each one decides one piece of semantics."""
