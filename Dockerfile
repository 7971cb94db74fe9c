# chopar in a container (docs/operations.md "Docker"): built on Debian 12 with
# the same packages as scripts/install-deps, run on Debian 12 slim as an
# unprivileged user. Configure it with CHOPAR_… variables (docker-compose.yml).

FROM debian:12 AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config ca-certificates \
      libpq-dev libboost-dev libcurl4-openssl-dev libssl-dev libsodium-dev \
      libhowardhinnant-date-dev nlohmann-json3-dev libspdlog-dev libfmt-dev \
      libcli11-dev libtomlplusplus-dev libsystemd-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY cmake cmake
COPY sql sql
COPY src src
COPY packaging packaging
COPY docs docs
COPY web web
COPY chopar.example.toml ./
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCHOPAR_BUILD_TESTS=OFF -DCHOPAR_BUILD_BENCH=OFF \
 && cmake --build build --target chopar \
 && strip build/chopar

FROM debian:12-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libpq5 libcurl4 libssl3 libsodium23 libdate-tz3 libtomlplusplus3 libspdlog1.10 libfmt9 \
      libsystemd0 tzdata ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/chopar --create-home chopar
COPY --from=build /src/build/chopar /usr/bin/chopar
COPY packaging/chopar.toml /etc/chopar/chopar.toml
USER chopar
WORKDIR /var/lib/chopar
ENV CHOPAR_SERVER_LISTEN=0.0.0.0:8080 \
    CHOPAR_SERVER_DATA_DIR=/var/lib/chopar
VOLUME /var/lib/chopar
EXPOSE 8080
ENTRYPOINT ["/usr/bin/chopar", "--config", "/etc/chopar/chopar.toml"]
CMD ["serve"]
