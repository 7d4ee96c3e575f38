# Herald's container image: the one executable on Debian's C library, and nothing else (no shell,
# no package manager), so it stays small: the binary is most of it. The binary is built outside
# (bun compiles for the machine it runs on), so build it first, then the image:
#
#   ./install.sh                              # → dist/herald
#   docker build -t herald .                  # or: podman build --format docker -t herald .
#
# BASE is any Debian bookworm image; an offline machine imports its own (debootstrap, then
# `podman import`) and passes --build-arg BASE=that-tag. Only RUN steps of the first stage need a
# shell, so no network is used while building.
ARG BASE=docker.io/library/debian:bookworm-slim

FROM ${BASE} AS rootfs
COPY dist/herald /rootfs/usr/local/bin/herald
COPY deploy/image/etc/ /rootfs/etc/
# The loader and libraries the binary links (ldd names them, whatever the architecture), copied
# with their paths; /data belongs to the user the server runs as, so a new volume does too.
RUN set -eu; \
    ldd /rootfs/usr/local/bin/herald | grep -o '/[^ ]*' | sort -u | while read -r lib; do \
      mkdir -p "/rootfs$(dirname "$lib")"; cp -L "$lib" "/rootfs$lib"; \
    done; \
    install -d -m 0700 -o 10001 -g 10001 /rootfs/data; \
    install -d -m 1777 /rootfs/tmp; \
    chmod 0755 /rootfs/usr/local/bin/herald

FROM scratch
COPY --from=rootfs /rootfs/ /
USER 10001:10001
ENV HERALD_DATA_DIR=/data \
    HERALD_HOST=0.0.0.0 \
    HERALD_PORT=8080 \
    HOME=/data
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080
# `herald healthcheck` asks /healthz on HERALD_PORT and exits 0 on 200 (there is no curl here).
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["/usr/local/bin/herald", "healthcheck"]
# exec form: herald is PID 1 and gets SIGTERM itself (it drains and closes the data file).
ENTRYPOINT ["/usr/local/bin/herald"]
CMD ["serve", "--data", "/data"]
