"""The Insight API from Python with httpx (Debian: python3-httpx; pip: httpx).

    INSIGHT_URL=http://127.0.0.1:3000 INSIGHT_KEY=$(cat data/demo-sleutel.txt) python3 examples/python/waarde.py
"""
import json
import os
import sys

import httpx

basis = os.environ.get("INSIGHT_URL", "http://127.0.0.1:3000") + "/api/v1"
sleutel = os.environ["INSIGHT_KEY"]

with httpx.Client(base_url=basis, headers={"Authorization": f"Bearer {sleutel}"}, timeout=30) as client:
    r = client.post("/inzicht/waarde", json={"adres": {"postcode": "7800SD", "huisnummer": "3"}})
    if r.status_code != 200:
        # Every error is {"fout": "..."}; the cost headers say what it cost (0 or, for a 422, 90 cent).
        print(f"{r.status_code}: {r.json()['fout']} (gefactureerd {r.headers['Insight-Gefactureerd-Cent']} cent)", file=sys.stderr)
        sys.exit(1)
    antwoord = r.json()
    d = antwoord["data"]
    print(json.dumps({
        "weergave": d["adres"]["weergave"],
        "marktwaarde": d["marktwaarde"],
        "band": [d["min"], d["max"]],
        "betrouwbaarheid": d["betrouwbaarheid"],
        "gefactureerd_cent": antwoord["meta"]["gefactureerd_cent"],
        "saldo_credits": int(r.headers["Insight-Saldo-Credits"]),
    }))
