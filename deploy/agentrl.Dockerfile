# The agentrl checkout with its Node and Python dependencies, for deploy/compose.yaml (UNTESTED EXAMPLE:
# see there). debootstrap builds the base sandbox image inside each worker's Docker daemon.
FROM node:20-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv python3-pip debootstrap docker.io \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /agentrl
COPY package.json package-lock.json requirements.txt ./
RUN npm ci && python3 -m venv .venv && .venv/bin/pip install -r requirements.txt
COPY . .
