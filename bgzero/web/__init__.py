"""bgzero-web: the browser app and the HTTP JSON engine, above ``ui/`` and below ``cli/``."""
