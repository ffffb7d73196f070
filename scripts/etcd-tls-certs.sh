#!/usr/bin/env bash
# Makes the certificates a TLS etcd needs for tests, demos and benchmarks (SPEC 9, TLS): a CA, a server
# certificate for 127.0.0.1 and localhost, and client certificates, all with openssl. Usage:
#   scripts/etcd-tls-certs.sh DIR
# DIR gets (keys mode 0600, the rest 0644):
#   ca.pem                       the CA that signs everything below except other-*
#   server.pem server.key        etcd's: SAN IP 127.0.0.1, DNS localhost, serverAuth (and clientAuth, for peers)
#   client.pem client.key        the agent's: CN agent, clientAuth
#   nocn-client.pem/.key         the agent's without a Common Name: what etcd's gateway wants with password auth
#                                (with auth on, it refuses any client certificate that carries a CN)
#   expired-client.pem/.key      the agent's, signed by ca.pem, expired
#   other-ca.pem                 an unrelated CA (a client trusting it cannot verify the server)
#   other-client.pem/.key        signed by other-ca.pem (a server trusting ca.pem refuses it)
# Elliptic-curve keys (P-256): quick to make, as etcd and the agent accept them.
set -euo pipefail

dir=${1:?usage: etcd-tls-certs.sh DIR}
mkdir -p "$dir"
cd "$dir"
umask 077

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

ca() {  # NAME CN
  key "$1.key"
  openssl req -x509 -new -key "$1.key" -out "$1.pem" -days 30 -subj "/CN=$2" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
}

leaf() {  # NAME CA CN DAYS EXTENSIONS (CN empty: no subject name at all)
  local name=$1 signer=$2 cn=$3 days=$4 extensions=$5 subject=/
  [[ -z $cn ]] || subject=/CN=$cn
  key "$name.key"
  openssl req -new -key "$name.key" -out "$name.csr" -subj "$subject" 2>/dev/null
  printf '%s\n' "$extensions" >"$name.ext"
  openssl x509 -req -in "$name.csr" -CA "$signer.pem" -CAkey "$signer.key" -CAcreateserial \
    -days "$days" -extfile "$name.ext" -out "$name.pem" 2>/dev/null
  rm -f "$name.csr" "$name.ext"
}

client_ext='basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth'

ca ca "cla test CA"
ca other-ca "cla unrelated CA"
leaf server ca etcd 30 'basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=IP:127.0.0.1,DNS:localhost'
leaf client ca agent 30 "$client_ext"
leaf nocn-client ca "" 30 "$client_ext
subjectAltName=DNS:cassandra-lifecycle-agent"
# -days -1: valid until a day before it was made, so expired from the start.
leaf expired-client ca agent -1 "$client_ext"
leaf other-client other-ca agent 30 "$client_ext"
rm -f ./*.srl
chmod 0644 ./*.pem
chmod 0600 ./*.key
