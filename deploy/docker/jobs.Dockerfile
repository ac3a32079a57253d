# The Flink image of Cheetah's jobs: the official Flink 2.2.1 (Java 17) with the shaded job jar
# in usrlib, and the submitter script. The jobmanager, taskmanager and flink-submit services of
# docker-compose.yml run it. Context: the repository root.

# Build: the shaded jar (flink-jobs/jobs) with the Maven wrapper, as ./cheetah setup builds it.
FROM eclipse-temurin:17.0.20_8-jdk-jammy AS build
WORKDIR /src
COPY mvnw pom.xml ./
COPY .mvn .mvn
COPY schemas schemas
COPY flink-jobs flink-jobs
RUN ./mvnw -B -q -pl flink-jobs/jobs -am package -DskipTests -Dspotless.check.skip=true \
 && test -f flink-jobs/jobs/target/cheetah-jobs.jar

FROM flink:2.2.1-scala_2.12-java17
COPY --from=build /src/flink-jobs/jobs/target/cheetah-jobs.jar /opt/flink/usrlib/cheetah-jobs.jar
COPY deploy/docker/flink/submit-jobs.sh /opt/cheetah/submit-jobs.sh
# The flink-data volume (checkpoints, savepoints) starts as a copy of this directory, so it is
# the flink user's, whom the image's entrypoint runs every command as.
RUN mkdir -p /flink-data && chown flink:flink /flink-data
