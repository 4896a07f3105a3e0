// SigV4 against the examples of AWS's own S3 documentation ("Signature Calculations for
// the Authorization Header: Transferring Payload in a Single Chunk"): the same canonical
// request, string to sign and signature, byte for byte.
#include "objectstore/sigv4.h"

#include <gtest/gtest.h>

namespace strata::objectstore {
namespace {

constexpr char kDate[] = "20130524T000000Z";
constexpr char kEmpty[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
const SigningKeyId kKey{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"};

std::string SignatureOf(const std::string& authorization) {
  return authorization.substr(authorization.find("Signature=") + 10);
}

TEST(SigV4, GetObjectWithRange) {
  CanonicalInput in;
  in.method = "GET";
  in.canonical_uri = "/test.txt";
  in.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
                {"Range", "bytes=0-9"},
                {"x-amz-content-sha256", kEmpty},
                {"x-amz-date", kDate}};
  in.payload_hash = kEmpty;
  EXPECT_EQ(CanonicalRequest(in),
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
            "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
            "x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(StringToSign(in, "us-east-1", "s3", kDate),
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  std::string auth = Authorization(in, kKey, "us-east-1", "s3", kDate);
  EXPECT_EQ(auth,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4, PutObjectWithAnEncodedKey) {
  CanonicalInput in;
  in.method = "PUT";
  in.canonical_uri = "/" + UriEncode("test$file.text", true);
  EXPECT_EQ(in.canonical_uri, "/test%24file.text");
  const std::string payload = Sha256Hex("Welcome to Amazon S3.");
  EXPECT_EQ(payload, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  in.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
                {"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                {"x-amz-date", kDate},
                {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
                {"x-amz-content-sha256", payload}};
  in.payload_hash = payload;
  EXPECT_EQ(SignatureOf(Authorization(in, kKey, "us-east-1", "s3", kDate)),
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SigV4, SubresourceWithoutAValue) {
  CanonicalInput in;
  in.method = "GET";
  in.canonical_uri = "/";
  in.query = {{"lifecycle", ""}};
  in.headers = {{"Host", "examplebucket.s3.amazonaws.com"}, {"x-amz-date", kDate}, {"x-amz-content-sha256", kEmpty}};
  in.payload_hash = kEmpty;
  EXPECT_NE(CanonicalRequest(in).find("\nlifecycle=\n"), std::string::npos);
  EXPECT_EQ(SignatureOf(Authorization(in, kKey, "us-east-1", "s3", kDate)),
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(SigV4, QueryParametersSortedAndEncoded) {
  CanonicalInput in;
  in.method = "GET";
  in.canonical_uri = "/";
  in.query = {{"prefix", "J"}, {"max-keys", "2"}};
  in.headers = {{"Host", "examplebucket.s3.amazonaws.com"}, {"x-amz-date", kDate}, {"x-amz-content-sha256", kEmpty}};
  in.payload_hash = kEmpty;
  EXPECT_NE(CanonicalRequest(in).find("\nmax-keys=2&prefix=J\n"), std::string::npos);
  EXPECT_EQ(SignatureOf(Authorization(in, kKey, "us-east-1", "s3", kDate)),
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(SigV4, UriEncoding) {
  EXPECT_EQ(UriEncode("a b/c~d_e.f-g", true), "a%20b/c~d_e.f-g");
  EXPECT_EQ(UriEncode("a b/c", false), "a%20b%2Fc");
  EXPECT_EQ(UriEncode("\xff=+", false), "%FF%3D%2B");
}

TEST(SigV4, HeaderValuesTrimmedAndNamesLowered) {
  CanonicalInput in;
  in.method = "GET";
  in.canonical_uri = "/k";
  in.headers = {{"X-Amz-Meta-A", "  one   two  "}, {"host", "h"}};
  in.payload_hash = "UNSIGNED-PAYLOAD";
  EXPECT_EQ(CanonicalRequest(in), "GET\n/k\n\nhost:h\nx-amz-meta-a:one two\n\nhost;x-amz-meta-a\nUNSIGNED-PAYLOAD");
}

}  // namespace
}  // namespace strata::objectstore
