"""Python source → untyped IR (parser) → typed IR (typecheck)."""
