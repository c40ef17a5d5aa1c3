"""The web view of a results database: ``tourney serve`` (a Starlette app on uvicorn, read-only)
and ``tourney report --format site`` (the same pages as static files).

- :mod:`tourney.web.pages`: what each page shows, as JSON-ready data (also its JSON twin);
- :mod:`tourney.web.replay`: a stored game step by step, from the engine;
- :mod:`tourney.web.render`: Jinja2 templates and the links between pages;
- :mod:`tourney.web.app`: the app and its routes; :mod:`tourney.web.site`: the static site.

docs/web.md lists the pages and their URLs.
"""
