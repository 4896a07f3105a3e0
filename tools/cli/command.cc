#include "tools/cli/command.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/kafka/error_code.h"

namespace strata::cli {

std::string ErrorText(int32_t code, const std::string& message) {
  return absl::StrCat(proto::kafka::ErrorName(static_cast<proto::kafka::ErrorCode>(code)),
                      message.empty() ? "" : ": ", message);
}

std::string Ids(const google::protobuf::RepeatedField<int32_t>& ids) { return absl::StrJoin(ids, ","); }

std::string TopicIdText(const std::string& bytes) {
  std::string out;
  absl::WebSafeBase64Escape(bytes, &out);
  return out;
}

int Fail(const std::string& what, const std::string& error) {
  std::cerr << "strata: " << what << ": " << error << std::endl;
  return kExitFailed;
}

void Print(const Table& table, const json& as_json_value, bool as_json) {
  if (as_json) {
    std::cout << as_json_value.dump() << std::endl;
  } else {
    table.Print(std::cout);
  }
}

}  // namespace strata::cli
