"""greploom: the right code for a question, in few tokens, offline."""

__version__ = "0.7.0.dev0"
