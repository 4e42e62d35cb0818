"""The package version, at the bottom layer so the cache can key on it without importing the package face."""
__version__ = "0.1.0"
