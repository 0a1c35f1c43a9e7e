# dagadvisor daemon image on Debian 12 slim, built in two stages:
#   docker build -t dagadvisor:latest .
# The runtime stage holds only the shared libraries the binary links, runs as an unprivileged
# user and writes nothing (the Kubernetes manifests mount the root filesystem read-only).

FROM debian:12-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      g++ cmake ninja-build pkg-config \
      prometheus-cpp-dev libcivetweb-dev civetweb libcurl4-openssl-dev nlohmann-json3-dev \
      libcxxopts-dev libyaml-cpp-dev libsimdjson-dev libgraphviz-dev libssl-dev zlib1g-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY cmake/ cmake/
COPY src/ src/
COPY tools/ tools/
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DDAGADVISOR_BUILD_TESTS=OFF \
 && cmake --build build --target dagadvisor dagadvisor-civetweb-openssl3 dagadvisor-civetweb-libcrypto \
 && strip build/src/dagadvisor \
 && build/src/dagadvisor version

FROM debian:12-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ca-certificates libcurl4 libcivetweb1 libprometheus-cpp-core1.0 libprometheus-cpp-pull1.0 \
      libyaml-cpp0.7 libsimdjson14 libgvc6 libcgraph6 \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 65532 dagadvisor \
 && useradd --system --uid 65532 --gid 65532 --no-create-home --shell /usr/sbin/nologin dagadvisor
COPY --from=build /src/build/src/dagadvisor /usr/local/bin/dagadvisor
# TLS with Debian's civetweb and OpenSSL 3 (see docs/api.md, "Authentication and TLS").
COPY --from=build /src/build/src/server/libdagadvisor-civetweb-*.so /usr/local/lib/dagadvisor/
COPY config/dagadvisor.example.yaml /etc/dagadvisor/dagadvisor.yaml
# glibc backs large allocations with transparent huge pages (the kernel's THP mode "madvise", the
# default on Debian and most distributions): a cycle of a 150,000-pod cluster touches ~350 MB, and
# faulting it in 4 KiB pages cost more than the analysis itself (docs/performance.md).
ENV GLIBC_TUNABLES=glibc.malloc.hugetlb=1
USER 65532:65532
EXPOSE 9731
ENTRYPOINT ["/usr/local/bin/dagadvisor"]
# The example config answers on 127.0.0.1 only; in a container listen on every interface.
CMD ["serve", "--config", "/etc/dagadvisor/dagadvisor.yaml", "--listen", "0.0.0.0:9731"]
