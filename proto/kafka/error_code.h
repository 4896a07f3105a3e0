#pragma once
// Kafka protocol error codes (the numbers clients see) and their names. The mapping
// from module errors to these codes happens only at the protocol edge (broker/).
// Thread-safe (constants).

#include <cstdint>
#include "absl/strings/string_view.h"

namespace strata::proto::kafka {

enum class ErrorCode : int16_t {
  kUnknownServerError = -1,
  kNone = 0,
  kOffsetOutOfRange = 1,
  kCorruptMessage = 2,
  kUnknownTopicOrPartition = 3,
  kLeaderNotAvailable = 5,
  kNotLeaderOrFollower = 6,
  kRequestTimedOut = 7,
  kMessageTooLarge = 10,
  kCoordinatorLoadInProgress = 14,
  kCoordinatorNotAvailable = 15,
  kRecordListTooLarge = 18,
  kNotEnoughReplicas = 19,
  kNotEnoughReplicasAfterAppend = 20,
  kUnsupportedVersion = 35,
  kInvalidConfig = 40,
  kInvalidRequest = 42,
  kOutOfOrderSequenceNumber = 45,
  kDuplicateSequenceNumber = 46,
  kInvalidProducerEpoch = 47,
  kKafkaStorageError = 56,
  kLogDirNotFound = 57,
  kOffsetNotAvailable = 78,
  kInvalidRecord = 87,
  kInvalidTopicException = 17,
  kTopicAlreadyExists = 36,
  kInvalidPartitions = 37,
  kInvalidReplicationFactor = 38,
  kInvalidReplicaAssignment = 39,
  kNotController = 41,
  kFencedLeaderEpoch = 74,
  kTopicDeletionDisabled = 73,
  kStaleBrokerEpoch = 77,
  kPreferredLeaderNotAvailable = 80,
  kInvalidUpdateVersion = 95,
  kEligibleLeadersNotAvailable = 83,
  kElectionNotNeeded = 84,
  kUnknownTopicId = 100,
  kDuplicateBrokerRegistration = 101,
  kBrokerIdNotRegistered = 102,
  kIneligibleReplica = 107,
  kUnknownLeaderEpoch = 75,
  kUnsupportedCompressionType = 76,
  kInvalidTimestamp = 32,
  kUnknownProducerId = 59,
  kInconsistentTopicId = 103,
  kMismatchedEndpointType = 114,
  kUnsupportedEndpointType = 115,
  kInvalidRequiredAcks = 21,
  kFetchSessionIdNotFound = 70,
  kInvalidFetchSessionEpoch = 71,
  kFetchSessionTopicIdError = 106,
  kOffsetMovedToTieredStorage = 109,
  // The group coordinator's (consumer groups and their offsets).
  kOffsetMetadataTooLarge = 12,
  kNotCoordinator = 16,
  kIllegalGeneration = 22,
  kInconsistentGroupProtocol = 23,
  kInvalidGroupId = 24,
  kUnknownMemberId = 25,
  kInvalidSessionTimeout = 26,
  kRebalanceInProgress = 27,
  kInvalidCommitOffsetSize = 28,
  kGroupAuthorizationFailed = 30,
  kNonEmptyGroup = 68,
  kGroupIdNotFound = 69,
  kMemberIdRequired = 79,
  kGroupMaxSizeReached = 81,
  kFencedInstanceId = 82,
  kGroupSubscribedToTopic = 86,
  kUnstableOffsetCommit = 88,
  // Authentication and authorization.
  kTopicAuthorizationFailed = 29,
  kClusterAuthorizationFailed = 31,
  kUnsupportedSaslMechanism = 33,
  kIllegalSaslState = 34,
  kSecurityDisabled = 54,
  kSaslAuthenticationFailed = 58,
  kTransactionalIdAuthorizationFailed = 53,
  kDelegationTokenAuthorizationFailed = 65,
  kUnacceptableCredential = 93,
  kResourceNotFound = 91,
  kDuplicateResource = 92,
};

absl::string_view ErrorName(ErrorCode code);
// Whether a client may retry the request as it is.
bool IsRetriable(ErrorCode code);

}  // namespace strata::proto::kafka
