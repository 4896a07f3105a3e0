#include "broker/handlers/kafka_apis.h"

#include <future>

#include "absl/strings/str_cat.h"
#include "broker/handlers/api_registry.h"
#include "broker/handlers/fetch_session.h"
#include "broker/handlers/request_quota.h"
#include "proto/kafka/api.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

KafkaApis::KafkaApis(KafkaApisContext context)
    : context_(std::move(context)),
      fetch_purgatory_(std::make_unique<Purgatory>("fetch")),
      produce_purgatory_(std::make_unique<Purgatory>("produce")),
      delete_records_purgatory_(std::make_unique<Purgatory>("delete-records")),
      purgatories_{*fetch_purgatory_, *produce_purgatory_, *delete_records_purgatory_} {}

KafkaApis::~KafkaApis() {
  // Waiting requests answer now, while the context they read is still here.
  fetch_purgatory_.reset();
  produce_purgatory_.reset();
  delete_records_purgatory_.reset();
}

void KafkaApis::OnHighWatermark(const storage::TopicPartition& tp) {
  std::string key = tp.DirName();
  fetch_purgatory_->CheckAndComplete(key);
  // Fetch sessions that hold the partition read it at their next fetch, and a fetch of
  // theirs waiting in the purgatory looks now.
  if (context_.fetch_sessions != nullptr) {
    for (int32_t session : context_.fetch_sessions->PartitionChanged(key)) {
      fetch_purgatory_->CheckAndComplete(SessionWatchKey(session));
    }
  }
  produce_purgatory_->CheckAndComplete(key);
  delete_records_purgatory_->CheckAndComplete(key);
}

void KafkaApis::Handle(const kafka::RequestHeader& header, absl::string_view body, ApiResponder respond) {
  const ApiEntry* api = FindApi(header.api_key);
  if (api == nullptr) {
    return respond(absl::UnimplementedError(absl::StrCat("api key ", header.api_key, " (",
                                                         kafka::ApiName(header.api_key),
                                                         ") is not served by this broker")));
  }
  if (!api->Serves(header.api_version) && !api->answers_every_version) {
    return respond(absl::UnimplementedError(absl::StrCat(kafka::ApiName(header.api_key), " v", header.api_version,
                                                         " is outside the advertised ", api->min_version, "..",
                                                         api->max_version)));
  }
  ApiRequest request{context_, header, body, purgatories_, AdvertisedApis()};
  if (UnderRequestQuota(context_, header)) return HandleUnderRequestQuota(*api, request, std::move(respond));
  api->handle(request, std::move(respond));
}

absl::StatusOr<std::optional<ApiResponse>> KafkaApis::HandleAndWait(const kafka::RequestHeader& header,
                                                                      absl::string_view body) {
  std::promise<absl::StatusOr<std::optional<ApiResponse>>> promise;
  auto future = promise.get_future();
  Handle(header, body, [&promise](absl::StatusOr<std::optional<ApiResponse>> answer) {
    promise.set_value(std::move(answer));
  });
  return future.get();
}

}  // namespace strata::broker
