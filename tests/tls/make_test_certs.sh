#!/usr/bin/env bash
# Makes throwaway TLS material for tests, with openssl, in DIR:
#   ca.pem ca.key          the cluster's CA
#   task.pem task.key      a certificate for the tasks (server and client
#                          use), valid for the given hosts (IP addresses or
#                          names) and for 127.0.0.1 and localhost
#   client.pem client.key  a client certificate of the cluster's CA
#   rogue-ca.pem, rogue.pem rogue.key  another CA and a certificate it signed
#   token                  a random cluster token (mode 600)
#
#   tests/tls/make_test_certs.sh DIR [HOST...]
set -euo pipefail
dir=${1:?usage: make_test_certs.sh DIR [HOST...]}
shift
mkdir -p "$dir"
cd "$dir"
san="IP:127.0.0.1,DNS:localhost"
for h in "$@"; do
  if [[ $h =~ ^[0-9.]+$ ]]; then san+=",IP:$h"; else san+=",DNS:$h"; fi
done
quiet() { "$@" >/dev/null 2>&1 || { echo "make_test_certs: failed: $*" >&2; "$@"; exit 1; }; }

make_ca() {  # name subject
  quiet openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.pem" -days 2 -subj "/CN=$2" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
}
make_cert() {  # name ca subject san
  quiet openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$3"
  printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n' \
    "$4" >"$1.ext"
  quiet openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -out "$1.pem" -days 2 \
    -extfile "$1.ext"
  rm -f "$1.csr" "$1.ext"
}
make_ca ca "flowvm test CA"
make_cert task ca "flowvm task" "$san"
make_cert client ca "flowvm client" "DNS:client"
make_ca rogue-ca "rogue CA"
make_cert rogue rogue-ca "flowvm task" "$san"
(umask 077 && openssl rand -hex 32 >token)
chmod 600 ./*.key
