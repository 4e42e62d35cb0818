"""Tack's intermediate representation: one op table, generic expressions, structured statements."""
