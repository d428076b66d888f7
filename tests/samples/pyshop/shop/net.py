"""Checkout over HTTP with retries and exponential backoff."""

import time

MAX_RETRIES = 5


def backoff_delay(attempt: int, base: float = 0.5) -> float:
    """Compute the retry backoff delay for an attempt number."""
    return base * (2**attempt)


def send_order(payload: dict, url: str) -> int:
    """Send an order and return the status code."""
    status = post_json(url, payload)
    for attempt in range(MAX_RETRIES):
        if status < 500:
            break
        time.sleep(backoff_delay(attempt))
        status = post_json(url, payload)
    return status


def post_json(url, payload):
    return 200  # the test server accepts every order


if MAX_RETRIES > 3:

    def describe_policy(limit: int) -> str:
        """Describe the retry policy."""
        return f"retry up to {limit} times"
