// The S3 answers' XML: elements found by name (not by a longer name that starts alike),
// attributes and self-closing elements, entities decoded, request text escaped.
#include "objectstore/s3_xml.h"

#include <gtest/gtest.h>

namespace strata::objectstore {
namespace {

TEST(S3Xml, ListObjectsAnswer) {
  const std::string xml =
      R"(<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">)"
      "<Name>b</Name><KeyCount>2</KeyCount><IsTruncated>true</IsTruncated>"
      "<NextContinuationToken>tok&amp;en</NextContinuationToken>"
      "<Contents><Key>a/1.log</Key><Size>10</Size></Contents>"
      "<Contents><Key>a/&lt;2&gt;.log</Key><Size>20</Size></Contents></ListBucketResult>";
  EXPECT_EQ(XmlText(xml, "IsTruncated"), "true");
  EXPECT_EQ(XmlText(xml, "NextContinuationToken"), "tok&en");
  EXPECT_EQ(XmlText(xml, "Key"), "a/1.log");  // not KeyCount
  auto contents = XmlElements(xml, "Contents");
  ASSERT_EQ(contents.size(), 2u);
  EXPECT_EQ(XmlText(contents[1], "Key"), "a/<2>.log");
  EXPECT_EQ(XmlText(contents[1], "Size"), "20");
  EXPECT_EQ(XmlText(xml, "Missing"), std::nullopt);
}

TEST(S3Xml, ErrorsAttributesAndEmptyElements) {
  const std::string xml = R"(<Error code="x"><Code>SlowDown</Code><Message/><Resource>&#47;b&#x2F;k</Resource></Error>)";
  EXPECT_EQ(XmlText(xml, "Code"), "SlowDown");
  EXPECT_EQ(XmlText(xml, "Message"), "");
  EXPECT_EQ(XmlText(xml, "Resource"), "/b/k");
  EXPECT_EQ(XmlElements(xml, "Error").size(), 1u);
}

TEST(S3Xml, EscapeRoundTrips) {
  const std::string text = R"(a&b<c>d"e'f)";
  EXPECT_EQ(XmlEscape(text), "a&amp;b&lt;c&gt;d&quot;e&apos;f");
  EXPECT_EQ(XmlUnescape(XmlEscape(text)), text);
  EXPECT_EQ(XmlUnescape("&unknown; & alone"), "&unknown; & alone");
}

}  // namespace
}  // namespace strata::objectstore
