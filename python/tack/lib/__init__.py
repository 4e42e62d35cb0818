"""Library code written in Tack's own kernel language: every engine renders it like user code."""
