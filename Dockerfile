# syntax=docker/dockerfile:1
#
# Sluice's image, for those who build with Docker (or BuildKit, Podman).
# `make image` builds the same image without Docker (hack/imagebuild); this
# file is not exercised by the tests. From the repository's root:
#
#   docker build -t ghcr.io/sluice-data/sluice:$(git describe --tags --always) \
#     --build-arg VERSION=$(git describe --tags --always) \
#     --build-arg REVISION=$(git rev-parse HEAD) .
#
# Scratch plus the CA bundle and a user database: entrypoint /sluice (the
# subcommand is the first argument), user nonroot (65532). The chart runs
# the CSI plugin as root and privileged; everything else runs as nonroot.

ARG GO_VERSION=1.26

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG TARGETOS=linux
ARG TARGETARCH
RUN CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} \
      go build -trimpath -ldflags "-s -w -X github.com/sluice-data/sluice/internal/buildinfo.version=${VERSION}" -o /out/sluice . \
 && mkdir -p /out/etc /out/home/nonroot \
 && mkdir -m 1777 /out/tmp \
 && printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > /out/etc/passwd \
 && printf 'root:x:0:\nnonroot:x:65532:\n' > /out/etc/group

FROM scratch
ARG VERSION=dev
ARG REVISION=unknown
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/etc/passwd /out/etc/group /etc/
COPY --from=build /out/tmp /tmp
COPY --from=build --chown=65532:65532 /out/home/nonroot /home/nonroot
COPY --from=build /out/sluice /sluice
ENV PATH=/ SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt HOME=/home/nonroot
LABEL org.opencontainers.image.title="sluice" \
      org.opencontainers.image.description="Sluice: Kubernetes-native data caching (controller, webhook, CSI plugin in one binary)" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="https://github.com/sluice-data/sluice"
USER 65532:65532
WORKDIR /
ENTRYPOINT ["/sluice"]
