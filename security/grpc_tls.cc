#include "security/grpc_tls.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <fstream>
#include <sstream>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace strata::security {
namespace {

namespace tls = grpc::experimental;

absl::StatusOr<std::string> Read(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read the ", what, " ", path));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The certificates in a PEM text (other blocks, such as a key, are skipped).
int CountCertificates(const std::string& pem, X509** first) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  int n = 0;
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    if (n++ == 0 && first != nullptr) {
      *first = cert;
    } else {
      X509_free(cert);
    }
  }
  BIO_free(bio);
  return n;
}

std::shared_ptr<tls::CertificateProviderInterface> Provider(const TlsFiles& files) {
  return std::make_shared<tls::FileWatcherCertificateProvider>(files.keystore, files.keystore, files.truststore,
                                                               static_cast<unsigned>(kTlsFilesRefresh.count()));
}

}  // namespace

absl::Status CheckTlsFiles(const TlsFiles& files) {
  absl::StatusOr<std::string> keystore = Read(files.keystore, "keystore");
  if (!keystore.ok()) return keystore.status();
  absl::StatusOr<std::string> truststore = Read(files.truststore, "truststore");
  if (!truststore.ok()) return truststore.status();
  BIO* bio = BIO_new_mem_buf(keystore->data(), static_cast<int>(keystore->size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  X509* leaf = nullptr;
  int chain = CountCertificates(*keystore, &leaf);
  absl::Status status;
  if (key == nullptr) {
    status = absl::InvalidArgumentError(absl::StrCat("the keystore ", files.keystore, " holds no PEM private key"));
  } else if (chain == 0) {
    status = absl::InvalidArgumentError(absl::StrCat("the keystore ", files.keystore, " holds no PEM certificate"));
  } else if (X509_check_private_key(leaf, key) != 1) {
    status = absl::InvalidArgumentError(
        absl::StrCat("the keystore ", files.keystore, ": its first certificate does not match its private key"));
  } else if (CountCertificates(*truststore, nullptr) == 0) {
    status = absl::InvalidArgumentError(absl::StrCat("the truststore ", files.truststore, " holds no PEM certificate"));
  }
  EVP_PKEY_free(key);
  X509_free(leaf);
  return status;
}

std::shared_ptr<grpc::ServerCredentials> ServerCredentials(const TlsFiles& files) {
  if (!files.enabled()) return grpc::InsecureServerCredentials();
  tls::TlsServerCredentialsOptions options(Provider(files));
  options.watch_root_certs();
  options.watch_identity_key_cert_pairs();
  options.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  return tls::TlsServerCredentials(options);
}

std::shared_ptr<grpc::ChannelCredentials> ChannelCredentials(const TlsFiles& files) {
  if (!files.enabled()) return grpc::InsecureChannelCredentials();
  tls::TlsChannelCredentialsOptions options;
  options.set_certificate_provider(Provider(files));
  options.watch_root_certs();
  options.watch_identity_key_cert_pairs();
  options.set_verify_server_certs(true);
  return tls::TlsCredentials(options);
}

}  // namespace strata::security
